//! The YAML reader: the only module that touches `yaml-rust2`.
//!
//! Drives the library's event parser and builds the spanned tree
//! ([`Node`]) with the line and column of every key and value. Scalars are
//! resolved with the YAML 1.2 core schema (`yes`, `on`, `0777` stay
//! strings); keys must be strings; anchors and aliases are expanded (at most
//! a million nodes in all); one document per file.

use std::collections::HashMap;
use std::path::Path;
use std::str::Chars;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Number, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::diagnostic::Diagnostic;
use crate::document::{short, Entry, Node, NodeKind, Pos, MAX_DEPTH};

/// Most nodes aliases may add to a file (an alias adds every node of the
/// anchor it repeats): bounds the memory an alias bomb can claim. The
/// nodes written out are bounded by the file's own size, so a large plain
/// suite is never refused for its length.
const MAX_NODES: usize = 1_000_000;

/// The YAML 1.2 core schema tag prefix (`!!int` is `tag:yaml.org,2002:int`).
const CORE_TAG: &str = "tag:yaml.org,2002:";

/// A position with the character index it came from (block mappings are
/// reported by the library after their first key; the index orders them).
#[derive(Clone, Copy)]
struct Mark {
    pos: Pos,
    index: usize,
}

fn mark(m: Marker) -> Mark {
    Mark {
        pos: Pos {
            line: m.line(),
            column: m.col() + 1,
        },
        index: m.index(),
    }
}

enum KeySlot {
    Valid(String, Pos),
    Invalid,
}

enum Frame {
    Seq {
        at: Mark,
        anchor: usize,
        items: Vec<Node>,
    },
    Map {
        at: Mark,
        anchor: usize,
        entries: Vec<Entry>,
        pending: Option<KeySlot>,
        first_key_seen: bool,
    },
}

struct Builder<'a> {
    path: &'a Path,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
    nodes: usize,
    diags: Vec<Diagnostic>,
    /// Hand out the items of the top-level `tests` list.
    stream: bool,
    /// A test read whole, not yet handed out.
    taken: Option<Node>,
    /// The top-level mapping when the first test was read.
    head: Option<Node>,
}

/// Parses one YAML document into the spanned tree. An empty stream is `null`
/// at 1:1.
///
/// # Errors
/// Fatal problems (syntax, a second document, too deep, too large); the
/// returned diagnostics of the `Ok` case are recoverable ones (a non-string
/// key, an unsupported tag, a number JSON cannot hold), already errors.
pub(crate) fn parse(src: &str, path: &Path) -> Result<(Node, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut r = Reader::new(src, path, false);
    while r.step()? {}
    Ok(r.finish())
}

/// A YAML document read event by event. Streaming, each item of the
/// top-level mapping's `tests` list is handed out as soon as it is read
/// ([`Reader::next_test`]) and never kept in the tree, so a suite's tests
/// need not all be held at once.
pub(crate) struct Reader<'a> {
    parser: Parser<Chars<'a>>,
    b: Builder<'a>,
    path: &'a Path,
    documents: usize,
    /// The character index of the last event read.
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `src`; `stream`: hand out the top-level tests.
    pub(crate) fn new(src: &'a str, path: &'a Path, stream: bool) -> Reader<'a> {
        Reader {
            parser: Parser::new_from_str(src),
            b: Builder {
                path,
                stack: Vec::new(),
                anchors: HashMap::new(),
                root: None,
                nodes: 0,
                diags: Vec::new(),
                stream,
                taken: None,
                head: None,
            },
            path,
            documents: 0,
            at: 0,
        }
    }

    /// The next item of the top-level `tests` list (streaming), or `None`
    /// at the end of the file.
    ///
    /// # Errors
    /// As [`parse`].
    pub(crate) fn next_test(&mut self) -> Result<Option<Node>, Vec<Diagnostic>> {
        loop {
            if let Some(n) = self.b.taken.take() {
                return Ok(Some(n));
            }
            if !self.step()? {
                return Ok(None);
            }
        }
    }

    /// The top-level mapping as it was when the first test was handed out:
    /// the keys before `tests`, then `tests` holding an empty list.
    pub(crate) fn take_head(&mut self) -> Option<Node> {
        self.b.head.take()
    }

    /// The character index reached in the text.
    pub(crate) fn at(&self) -> usize {
        self.at
    }

    /// The root (without the tests handed out) and the recoverable
    /// diagnostics, once every event is read.
    pub(crate) fn finish(mut self) -> (Node, Vec<Diagnostic>) {
        let root = self.b.root.take().unwrap_or(Node {
            pos: Pos { line: 1, column: 1 },
            kind: NodeKind::Scalar(Value::Null),
        });
        (root, self.b.diags)
    }

    /// Reads one event; `false` at the end of the stream.
    fn step(&mut self) -> Result<bool, Vec<Diagnostic>> {
        let path = self.path;
        let b = &mut self.b;
        let (event, marker) = match self.parser.next_token() {
            Ok(x) => x,
            Err(e) => {
                let m = mark(*e.marker());
                let d = Diagnostic::error(
                    "yaml-syntax",
                    path,
                    m.pos.line,
                    m.pos.column,
                    format!("invalid YAML: {}", e.info()),
                );
                // Most block-structure errors are indentation mistakes.
                let d = if e.info().contains("block") || e.info().contains("indent") {
                    d.with_hint("YAML nests by indentation: the keys of one mapping, and the `-` items of one list, start in the same column (spaces, not tabs); the mistake may be on the line above")
                } else {
                    d
                };
                return Err(vec![d]);
            }
        };
        let at = mark(marker);
        self.at = at.index;
        match event {
            Event::StreamEnd => return Ok(false),
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(vec![Diagnostic::error(
                        "multiple-documents",
                        path,
                        at.pos.line,
                        at.pos.column,
                        "a second YAML document starts here",
                    )
                    .with_hint("a file holds exactly one document: remove the `---` separator or split the file")]);
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let value = b.scalar(&text, style, tag.as_ref(), at.pos);
                // An empty plain scalar (`key:` with nothing after it) is
                // reported at the next token; point at the key instead.
                let pos = match (&b.stack.last(), style, text.is_empty()) {
                    (
                        Some(Frame::Map {
                            pending: Some(KeySlot::Valid(_, kp)),
                            ..
                        }),
                        TScalarStyle::Plain,
                        true,
                    ) => *kp,
                    _ => at.pos,
                };
                let node = Node {
                    pos,
                    kind: NodeKind::Scalar(value),
                };
                if anchor != 0 {
                    b.anchors.insert(anchor, node.clone());
                }
                b.deliver(node, at)?;
            }
            Event::SequenceStart(anchor, tag) => {
                b.check_collection_tag(tag.as_ref(), "seq", at.pos);
                b.open(
                    Frame::Seq {
                        at,
                        anchor,
                        items: Vec::new(),
                    },
                    at,
                )?;
            }
            Event::MappingStart(anchor, tag) => {
                b.check_collection_tag(tag.as_ref(), "map", at.pos);
                b.open(
                    Frame::Map {
                        at,
                        anchor,
                        entries: Vec::new(),
                        pending: None,
                        first_key_seen: false,
                    },
                    at,
                )?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = b.stack.pop() else {
                    return Ok(true);
                };
                let (node, anchor) = match frame {
                    // Without spare capacity: the tree is as large as the file.
                    Frame::Seq {
                        at,
                        anchor,
                        mut items,
                    } => (
                        Node {
                            pos: at.pos,
                            kind: NodeKind::Seq({
                                items.shrink_to_fit();
                                items
                            }),
                        },
                        anchor,
                    ),
                    Frame::Map {
                        at,
                        anchor,
                        mut entries,
                        ..
                    } => (
                        Node {
                            pos: at.pos,
                            kind: NodeKind::Map({
                                entries.shrink_to_fit();
                                entries
                            }),
                        },
                        anchor,
                    ),
                };
                if anchor != 0 {
                    b.anchors.insert(anchor, node.clone());
                }
                b.deliver_built(node)?;
            }
            Event::Alias(id) => {
                let Some(node) = b.anchors.get(&id).cloned() else {
                    return Err(vec![Diagnostic::error(
                        "yaml-syntax",
                        path,
                        at.pos.line,
                        at.pos.column,
                        "alias to an unknown anchor",
                    )]);
                };
                b.nodes = b.nodes.saturating_add(node.size());
                if b.nodes > MAX_NODES {
                    return Err(b.fatal(
                        "too-large",
                        at.pos,
                        &format!("aliases expand to more than {MAX_NODES} nodes"),
                        "an alias that repeats a large anchor many times expands to every copy; write the structure out",
                    ));
                }
                b.deliver(node, at)?;
            }
        }
        Ok(true)
    }
}

impl Builder<'_> {
    fn fatal(&self, code: &str, at: Pos, message: &str, hint: &str) -> Vec<Diagnostic> {
        vec![Diagnostic::error(code, self.path, at.line, at.column, message).with_hint(hint)]
    }

    fn open(&mut self, frame: Frame, at: Mark) -> Result<(), Vec<Diagnostic>> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.fatal(
                "too-deep",
                at.pos,
                &format!("nesting deeper than {MAX_DEPTH} levels"),
                "flatten the structure",
            ));
        }
        // A collection in key position is reported when it is complete.
        if let Some(Frame::Map {
            pending: None,
            at: map_at,
            first_key_seen,
            ..
        }) = self.stack.last_mut()
        {
            if !*first_key_seen {
                *first_key_seen = true;
                if at.index < map_at.index {
                    *map_at = at;
                }
            }
        }
        self.stack.push(frame);
        Ok(())
    }

    /// Hands a scalar or alias node to the enclosing collection.
    fn deliver(&mut self, node: Node, at: Mark) -> Result<(), Vec<Diagnostic>> {
        if let Some(Frame::Map {
            pending: None,
            at: map_at,
            first_key_seen,
            ..
        }) = self.stack.last_mut()
        {
            if !*first_key_seen {
                *first_key_seen = true;
                if at.index < map_at.index {
                    *map_at = at;
                }
            }
        }
        self.deliver_built(node)
    }

    fn deliver_built(&mut self, node: Node) -> Result<(), Vec<Diagnostic>> {
        if self.stream && self.in_tests() {
            if self.head.is_none() {
                self.head = self.head_now();
            }
            self.taken = Some(node);
            return Ok(());
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries, pending, ..
            }) => match pending.take() {
                None => {
                    let slot = match node.kind {
                        NodeKind::Scalar(Value::String(s)) => KeySlot::Valid(s, node.pos),
                        other => {
                            let found = match other {
                                NodeKind::Scalar(Value::Null) => "null",
                                NodeKind::Scalar(Value::Bool(_)) => "a boolean",
                                NodeKind::Scalar(Value::Number(_)) => "a number",
                                NodeKind::Seq(_) => "a list",
                                _ => "a mapping",
                            };
                            self.diags.push(
                                Diagnostic::error(
                                    "non-string-key",
                                    self.path,
                                    node.pos.line,
                                    node.pos.column,
                                    format!("a key must be a string, found {found}"),
                                )
                                .with_hint("quote the key (`\"1\": …`); keys are names, never numbers, booleans or collections"),
                            );
                            KeySlot::Invalid
                        }
                    };
                    *pending = Some(slot);
                }
                Some(KeySlot::Valid(key, key_pos)) => entries.push(Entry {
                    key,
                    key_pos,
                    value: node,
                }),
                Some(KeySlot::Invalid) => {}
            },
        }
        Ok(())
    }

    /// Whether a node delivered now is an item of the top-level `tests`.
    fn in_tests(&self) -> bool {
        matches!(
            self.stack.as_slice(),
            [Frame::Map {
                pending: Some(KeySlot::Valid(key, _)),
                ..
            }, Frame::Seq { .. }] if key == "tests"
        )
    }

    /// The top-level mapping read so far, its `tests` an empty list.
    fn head_now(&self) -> Option<Node> {
        let [Frame::Map {
            at,
            entries,
            pending: Some(KeySlot::Valid(key, key_pos)),
            ..
        }, Frame::Seq { at: tests_at, .. }] = self.stack.as_slice()
        else {
            return None;
        };
        let mut entries = entries.clone();
        entries.push(Entry {
            key: key.clone(),
            key_pos: *key_pos,
            value: Node {
                pos: tests_at.pos,
                kind: NodeKind::Seq(Vec::new()),
            },
        });
        Some(Node {
            pos: at.pos,
            kind: NodeKind::Map(entries),
        })
    }

    fn check_collection_tag(&mut self, tag: Option<&Tag>, expected: &str, at: Pos) {
        if let Some(t) = tag {
            if !(t.handle == CORE_TAG && t.suffix == expected) {
                self.diags.push(unsupported_tag(self.path, t, at));
            }
        }
    }

    fn scalar(&mut self, text: &str, style: TScalarStyle, tag: Option<&Tag>, at: Pos) -> Value {
        let resolved = match (tag, style) {
            (Some(t), _) if t.handle == CORE_TAG => resolve_tagged(text, &t.suffix),
            (Some(t), _) => {
                self.diags.push(unsupported_tag(self.path, t, at));
                return Value::String(text.to_string());
            }
            (None, TScalarStyle::Plain) => resolve_plain(text),
            (None, _) => Ok(Value::String(text.to_string())),
        };
        match resolved {
            Ok(v) => v,
            Err(msg) => {
                self.diags.push(
                    Diagnostic::error("bad-scalar", self.path, at.line, at.column, msg)
                        .with_hint("quote the value to keep it as text"),
                );
                Value::Null
            }
        }
    }
}

fn unsupported_tag(path: &Path, t: &Tag, at: Pos) -> Diagnostic {
    let name = if t.handle == CORE_TAG {
        format!("!!{}", t.suffix)
    } else {
        format!("{}{}", t.handle, t.suffix)
    };
    Diagnostic::error(
        "unsupported-tag",
        path,
        at.line,
        at.column,
        format!("unsupported tag `{}`", short(&name)),
    )
    .with_hint("only the core tags `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq` and `!!map` are understood")
}

static INT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^[-+]?[0-9]+$").ok());
static FLOAT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$").ok());

fn is(re: &LazyLock<Option<Regex>>, s: &str) -> bool {
    re.as_ref().is_some_and(|r| r.is_match(s))
}

/// Resolves an untagged plain scalar with the YAML 1.2 core schema.
///
/// # Errors
/// An integer out of the 64-bit range, or a float JSON cannot hold
/// (`.inf`, `.nan`, or one that overflows).
pub(crate) fn resolve_plain(s: &str) -> Result<Value, String> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "true" | "True" | "TRUE" => return Ok(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Value::Bool(false)),
        _ => {}
    }
    if let Some(v) = resolve_int(s) {
        return v;
    }
    if let Some(v) = resolve_float(s) {
        return v;
    }
    Ok(Value::String(s.to_string()))
}

fn resolve_int(s: &str) -> Option<Result<Value, String>> {
    let out_of_range = || format!("integer `{}` is out of the 64-bit range", short(s));
    if is(&INT, s) {
        let digits = s.strip_prefix('+').unwrap_or(s);
        return Some(if let Ok(i) = digits.parse::<i64>() {
            Ok(Value::from(i))
        } else if let Ok(u) = digits.parse::<u64>() {
            Ok(Value::from(u))
        } else {
            Err(out_of_range())
        });
    }
    let (digits, radix) = if let Some(d) = s.strip_prefix("0o") {
        (d, 8)
    } else if let Some(d) = s.strip_prefix("0x") {
        (d, 16)
    } else {
        return None;
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(
        u64::from_str_radix(digits, radix)
            .map(Value::from)
            .map_err(|_| out_of_range()),
    )
}

fn resolve_float(s: &str) -> Option<Result<Value, String>> {
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(Err(format!("`{s}` is not a number JSON can hold")));
    }
    if !is(&FLOAT, s) {
        return None;
    }
    Some(
        s.parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("`{}` is not a number JSON can hold", short(s))),
    )
}

/// Resolves a scalar with an explicit core tag (`!!str 1` is the text "1").
fn resolve_tagged(s: &str, suffix: &str) -> Result<Value, String> {
    let bad = |what: &str| format!("`{}` is not {what}", short(s));
    match suffix {
        "str" => Ok(Value::String(s.to_string())),
        "null" => match s {
            "" | "~" | "null" | "Null" | "NULL" => Ok(Value::Null),
            _ => Err(bad("null")),
        },
        "bool" => match resolve_plain(s) {
            Ok(Value::Bool(b)) => Ok(Value::Bool(b)),
            _ => Err(bad("a boolean")),
        },
        "int" => resolve_int(s).unwrap_or_else(|| Err(bad("an integer"))),
        "float" => resolve_float(s)
            .or_else(|| resolve_int(s))
            .unwrap_or_else(|| Err(bad("a number"))),
        other => Err(format!(
            "the tag `!!{}` does not apply to a scalar",
            short(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_alias_expansion_counts_toward_the_node_bound() {
        // More nodes written out than the bound allows to aliases: read.
        let plain = "- 1\n".repeat(MAX_NODES + 10);
        let (root, diags) = parse(&plain, Path::new("big.yaml")).expect("a plain file is read");
        assert!(diags.is_empty());
        assert_eq!(root.size(), MAX_NODES + 11);
        // Aliases adding just past the bound: refused.
        let anchor = format!("a: &a [{}]\n", vec!["x"; 1000].join(", "));
        let repeats = vec!["*a"; MAX_NODES / 1001 + 1].join(", ");
        let bomb = format!("{anchor}b: [{repeats}]\n");
        let err = parse(&bomb, Path::new("bomb.yaml")).expect_err("too many alias nodes");
        assert_eq!(err[0].code, "too-large");
        assert!(
            err[0].message.contains("aliases expand"),
            "{}",
            err[0].message
        );
        // Just under it: read.
        let repeats = vec!["*a"; MAX_NODES / 1001].join(", ");
        let fine = format!("{anchor}b: [{repeats}]\n");
        assert!(parse(&fine, Path::new("fine.yaml")).is_ok());
    }

    #[test]
    fn core_schema_resolution() {
        let cases: &[(&str, Value)] = &[
            ("", Value::Null),
            ("~", Value::Null),
            ("null", Value::Null),
            ("Null", Value::Null),
            ("NULL", Value::Null),
            ("nULL", json!("nULL")),
            ("true", json!(true)),
            ("True", json!(true)),
            ("TRUE", json!(true)),
            ("false", json!(false)),
            ("FALSE", json!(false)),
            ("yes", json!("yes")),
            ("no", json!("no")),
            ("on", json!("on")),
            ("off", json!("off")),
            ("y", json!("y")),
            ("0", json!(0)),
            ("-0", json!(0)),
            ("+12", json!(12)),
            ("-12", json!(-12)),
            ("0777", json!(777)),
            ("0o17", json!(15)),
            ("0x1F", json!(31)),
            ("0x", json!("0x")),
            ("0o8", json!("0o8")),
            ("18446744073709551615", json!(u64::MAX)),
            ("-9223372036854775808", json!(i64::MIN)),
            ("1.5", json!(1.5)),
            ("1.", json!(1.0)),
            (".5", json!(0.5)),
            ("-.5e1", json!(-5.0)),
            ("1e3", json!(1000.0)),
            ("1_000", json!("1_000")),
            ("1.2.3", json!("1.2.3")),
            ("12:30", json!("12:30")),
            (".", json!(".")),
            ("inf", json!("inf")),
            ("1 2", json!("1 2")),
        ];
        for (s, want) in cases {
            assert_eq!(resolve_plain(s).as_ref(), Ok(want), "{s:?}");
        }
        for bad in [
            "18446744073709551616",
            "-9223372036854775809",
            ".inf",
            "-.Inf",
            ".NaN",
            "1e999",
        ] {
            assert!(resolve_plain(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tagged_scalars() {
        assert_eq!(resolve_tagged("1", "str"), Ok(json!("1")));
        assert_eq!(resolve_tagged("true", "str"), Ok(json!("true")));
        assert_eq!(resolve_tagged("2", "int"), Ok(json!(2)));
        assert_eq!(resolve_tagged("2", "float"), Ok(json!(2.0)));
        assert_eq!(resolve_tagged("2.5", "float"), Ok(json!(2.5)));
        assert_eq!(resolve_tagged("~", "null"), Ok(Value::Null));
        assert_eq!(resolve_tagged("true", "bool"), Ok(json!(true)));
        for (s, t) in [
            ("x", "int"),
            ("x", "float"),
            ("x", "bool"),
            ("x", "null"),
            ("x", "map"),
        ] {
            assert!(resolve_tagged(s, t).is_err(), "{s} {t}");
        }
    }
}
