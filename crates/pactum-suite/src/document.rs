//! A parsed input file: its JSON value plus where every node was written.
//!
//! YAML (`yaml.rs`) and JSON (`json.rs`) are read into one spanned tree
//! (`Node`), which becomes a [`Document`]: a `serde_json::Value` and an
//! index (`positions.rs`) giving, for each JSON pointer (RFC 6901) that
//! names a node, the line and column of the node's key and of its value.
//! Schema validation and semantic checks address nodes by pointer and use
//! the index to locate their diagnostics.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;
use crate::positions::{Positions, TooManyNodes};

/// A 1-based line and character column; `0:0` means "no position".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Where a node was written: its key (for a mapping entry; for a list item
/// or the root, the same as `value`) and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Location {
    /// The key's position.
    pub key: Pos,
    /// The value's position.
    pub value: Pos,
}

/// Which part of a node a diagnostic points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The mapping key (e.g. an unknown key).
    Key,
    /// The value (e.g. a wrong type).
    Value,
}

/// The spanned tree both readers produce.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) pos: Pos,
    pub(crate) kind: NodeKind,
}

#[derive(Debug, Clone)]
pub(crate) enum NodeKind {
    Scalar(Value),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) key_pos: Pos,
    pub(crate) value: Node,
}

impl Node {
    /// Number of nodes in this tree (for the alias-expansion bound).
    pub(crate) fn size(&self) -> usize {
        1 + match &self.kind {
            NodeKind::Scalar(_) => 0,
            NodeKind::Seq(items) => items.iter().map(Node::size).sum(),
            NodeKind::Map(entries) => entries.iter().map(|e| e.value.size()).sum(),
        }
    }
}

/// Deepest nesting accepted (the same bound serde_json applies to JSON).
pub(crate) const MAX_DEPTH: usize = 128;

/// A parsed file (YAML or JSON) with the location of every node.
///
/// Every node of `value` (addressed by JSON pointer: `""` is the root,
/// `/required/0/check`) has a recorded location ([`Document::locate`]). `diagnostics` holds the
/// problems that did not stop parsing (a duplicate key: the first value is
/// kept); a caller must treat its errors as failing the file.
#[derive(Debug, Clone)]
pub struct Document {
    /// The file the document came from (as given, for diagnostics).
    pub path: PathBuf,
    /// The file's content as JSON.
    pub value: Value,
    /// Where each node was written.
    positions: Positions,
    /// Problems found while parsing that did not stop it.
    pub diagnostics: Vec<Diagnostic>,
}

impl Document {
    /// Parses `src` as JSON when `path` ends in `.json`, as YAML (1.2 core
    /// schema, one document) otherwise.
    ///
    /// # Errors
    /// A syntax error (code `yaml-syntax` or `json-syntax`), a second YAML
    /// document (`multiple-documents`), nesting deeper than 128 levels
    /// (`too-deep`) or an alias expansion beyond a million nodes
    /// (`too-large`), each located.
    pub fn parse(src: &str, path: &Path) -> Result<Document, Vec<Diagnostic>> {
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let (node, diagnostics) = if is_json {
            (crate::json::parse(src, path)?, Vec::new())
        } else {
            crate::yaml::parse(src, path)?
        };
        Document::from_node(node, path, diagnostics)
    }

    /// The document of a spanned tree, `diagnostics` the reader's (the
    /// absorbed tree's duplicate keys are added to them).
    ///
    /// # Errors
    /// More nodes than the index can number (`too-large`).
    pub(crate) fn from_node(
        node: Node,
        path: &Path,
        mut diagnostics: Vec<Diagnostic>,
    ) -> Result<Document, Vec<Diagnostic>> {
        let mut doc = Document {
            path: path.to_path_buf(),
            value: Value::Null,
            positions: Positions::with_root(),
            diagnostics: Vec::new(),
        };
        let root_pos = node.pos;
        doc.value = doc
            .absorb(node, 0, None, root_pos, &mut diagnostics)
            .map_err(|TooManyNodes| {
                vec![Diagnostic::error(
                    "too-large",
                    path,
                    1,
                    1,
                    "more nodes than pactum can index (4 294 967 294)",
                )]
            })?;
        doc.positions.shrink();
        doc.diagnostics = diagnostics;
        Ok(doc)
    }

    /// Reads and parses a file (see [`Document::parse`]).
    ///
    /// # Errors
    /// Besides parse errors: the file cannot be read (code `io`, naming the
    /// path and the OS error), or is not UTF-8 (code `not-utf8`, located at
    /// the first invalid byte).
    pub fn read(path: &Path) -> Result<Document, Vec<Diagnostic>> {
        let src = read_text(path)?;
        Document::parse(&src, path)
    }

    /// The location of the node at `pointer`, or of its nearest ancestor
    /// that has one (a missing key is reported at the mapping that lacks it).
    pub fn locate(&self, pointer: &str) -> Location {
        self.positions.locate(pointer).unwrap_or(Location {
            key: Pos { line: 1, column: 1 },
            value: Pos { line: 1, column: 1 },
        })
    }

    /// Sets where the node at `pointer` is said to be written (a node put
    /// in the value after parsing); [`Document::locate`] finds it first.
    pub fn set_location(&mut self, pointer: &str, at: Location) {
        self.positions.set_location(pointer.to_string(), at);
    }

    /// Every node's pointer and location, in pointer order (builds every
    /// pointer string: for small documents).
    pub fn locations(&self) -> BTreeMap<String, Location> {
        self.positions.all()
    }

    /// The position of one part of the node at `pointer` (see [`Document::locate`]).
    pub fn pos(&self, pointer: &str, part: Part) -> Pos {
        let l = self.locate(pointer);
        match part {
            Part::Key => l.key,
            Part::Value => l.value,
        }
    }

    /// An error located at `pointer`.
    pub fn error(
        &self,
        code: &str,
        pointer: &str,
        part: Part,
        message: impl Into<String>,
    ) -> Diagnostic {
        let p = self.pos(pointer, part);
        Diagnostic::error(code, &self.path, p.line, p.column, message)
    }

    /// A warning located at `pointer`.
    pub fn warning(
        &self,
        code: &str,
        pointer: &str,
        part: Part,
        message: impl Into<String>,
    ) -> Diagnostic {
        let p = self.pos(pointer, part);
        Diagnostic::warning(code, &self.path, p.line, p.column, message)
    }

    /// Converts the node in `slot` (its key written at `key_pos`) to its
    /// value, recording where it and every node under it were written.
    fn absorb(
        &mut self,
        node: Node,
        slot: u32,
        key: Option<u32>,
        key_pos: Pos,
        diags: &mut Vec<Diagnostic>,
    ) -> Result<Value, TooManyNodes> {
        self.positions.set(
            slot,
            key,
            Location {
                key: key_pos,
                value: node.pos,
            },
        );
        Ok(match node.kind {
            NodeKind::Scalar(v) => v,
            NodeKind::Seq(items) => {
                let first = self.positions.children(slot, items.len())?;
                let mut out = Vec::with_capacity(items.len());
                for (n, i) in items.into_iter().zip(first..) {
                    let pos = n.pos;
                    out.push(self.absorb(n, i, None, pos, diags)?);
                }
                Value::Array(out)
            }
            NodeKind::Map(entries) => {
                // The first of equal keys is kept; each other one is
                // reported (with where the first is) as it is met in order.
                let duplicate_of: Vec<Option<Pos>> = {
                    let mut first: HashMap<&str, Pos> = HashMap::new();
                    entries
                        .iter()
                        .map(|e| match first.get(e.key.as_str()) {
                            Some(at) => Some(*at),
                            None => {
                                first.insert(&e.key, e.key_pos);
                                None
                            }
                        })
                        .collect()
                };
                // The kept entries' slots are sorted by key symbol.
                let mut symbols: Vec<(u32, usize)> = Vec::new();
                for (j, e) in entries.iter().enumerate() {
                    if duplicate_of[j].is_none() {
                        symbols.push((self.positions.symbol(&e.key), j));
                    }
                }
                symbols.sort_unstable();
                let mut slot_of = vec![(0u32, 0u32); entries.len()];
                let block = self.positions.children(slot, symbols.len())?;
                for (i, (sym, j)) in (block..).zip(&symbols) {
                    slot_of[*j] = (i, *sym);
                }
                let mut map = Map::with_capacity(symbols.len());
                for (j, e) in entries.into_iter().enumerate() {
                    if let Some(at) = duplicate_of[j] {
                        diags.push(
                            Diagnostic::error(
                                "duplicate-key",
                                &self.path,
                                e.key_pos.line,
                                e.key_pos.column,
                                format!("duplicate key `{}`", short(&e.key)),
                            )
                            .with_hint(format!(
                                "first defined at line {}, column {}; a key may appear once per mapping (the first value is used)",
                                at.line, at.column
                            )),
                        );
                        continue;
                    }
                    let (child, sym) = slot_of[j];
                    let v = self.absorb(e.value, child, Some(sym), e.key_pos, diags)?;
                    map.insert(e.key, v);
                }
                Value::Object(map)
            }
        })
    }
}

/// Reads a file as UTF-8 text.
///
/// # Errors
/// Code `io` (naming the path and the OS error) or `not-utf8` (at the line
/// and column of the first invalid byte).
pub fn read_text(path: &Path) -> Result<String, Vec<Diagnostic>> {
    let bytes = std::fs::read(path).map_err(|e| {
        vec![Diagnostic::error(
            "io",
            path,
            0,
            0,
            format!("cannot read `{}`: {e}", path.display()),
        )]
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let valid = &bytes[..e.utf8_error().valid_up_to()];
        // The prefix is valid UTF-8 by construction.
        let prefix = String::from_utf8_lossy(valid);
        let line = prefix.matches('\n').count() + 1;
        let column = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let byte = bytes.get(valid.len()).copied().unwrap_or(0);
        vec![Diagnostic::error(
            "not-utf8",
            path,
            line,
            column,
            format!(
                "`{}` is not UTF-8 text (byte 0x{byte:02X} at line {line}, column {column})",
                path.display()
            ),
        )
        .with_hint("save the file as UTF-8")]
    })
}

/// Checks that `p` is a JSON pointer (RFC 6901): empty, or `/`-separated
/// tokens in which `~` is only ever followed by `0` or `1` (the rule is
/// [`pactum_core::json::pointer_tokens`]'s).
///
/// # Errors
/// A lowercase fragment naming the pointer and what is wrong.
pub fn check_pointer(p: &str) -> Result<(), String> {
    pactum_core::json::pointer_tokens(p)
        .map(drop)
        .map_err(|e| format!("`{}`: {e}", short(p)))
}

/// Bounds text taken from a file before it goes into a message.
pub(crate) fn short(s: &str) -> String {
    pactum_core::text::truncate_chars(s, 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers() {
        for ok in ["", "/", "/a", "/a~0b~1c", "/0/x", "//"] {
            assert_eq!(check_pointer(ok), Ok(()), "{ok}");
        }
        for bad in ["a", "/a~", "/a~2", "/~x", "x/y"] {
            assert!(check_pointer(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn locations_fall_back_to_the_nearest_ancestor() {
        let d = Document::parse("a:\n  b: 1\n", Path::new("x.yaml"))
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(d.pos("/a/b", Part::Value), Pos { line: 2, column: 6 });
        assert_eq!(d.pos("/a/b", Part::Key), Pos { line: 2, column: 3 });
        assert_eq!(d.pos("/a/b/c/d", Part::Key), Pos { line: 2, column: 3 });
        assert_eq!(d.pos("/a/zz", Part::Value), Pos { line: 2, column: 3 });
        assert_eq!(d.pos("/nope", Part::Key), Pos { line: 1, column: 1 });
    }

    // ------------------------------------------------------------------
    // The position index against the map from pointer strings it
    // replaced: the same location for every node and every other pointer.

    use pactum_core::json::escape_pointer_token;
    use proptest::prelude::*;

    /// The replaced index: pointer string → location, duplicates skipped.
    fn reference(node: &Node, pointer: String, key_pos: Pos, out: &mut BTreeMap<String, Location>) {
        out.insert(
            pointer.clone(),
            Location {
                key: key_pos,
                value: node.pos,
            },
        );
        match &node.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => {
                for (i, n) in items.iter().enumerate() {
                    reference(n, format!("{pointer}/{i}"), n.pos, out);
                }
            }
            NodeKind::Map(entries) => {
                let mut seen = std::collections::HashSet::new();
                for e in entries {
                    if seen.insert(e.key.clone()) {
                        let child = format!("{pointer}/{}", escape_pointer_token(&e.key));
                        reference(&e.value, child, e.key_pos, out);
                    }
                }
            }
        }
    }

    /// The replaced lookup.
    fn reference_locate(map: &BTreeMap<String, Location>, pointer: &str) -> Location {
        let mut p = pointer;
        loop {
            if let Some(l) = map.get(p) {
                return *l;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => {
                    return Location {
                        key: Pos { line: 1, column: 1 },
                        value: Pos { line: 1, column: 1 },
                    }
                }
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Tree {
        Int(i64),
        Text(String),
        Seq(Vec<Tree>, bool),
        Map(Vec<(String, Tree)>, bool),
    }

    /// Few keys, so that duplicates and keys looking like indexes or
    /// needing escapes are common.
    const KEYS: [&str; 12] = [
        "a", "b", "~", "/", "0", "1", "01", "", "a/b", "~1", " x", "-",
    ];

    fn tree() -> impl Strategy<Value = Tree> {
        let leaf = prop_oneof![
            any::<i64>().prop_map(Tree::Int),
            "[a-z ]{0,6}".prop_map(Tree::Text),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                (prop::collection::vec(inner.clone(), 0..6), any::<bool>())
                    .prop_map(|(v, f)| Tree::Seq(v, f)),
                (
                    prop::collection::vec((prop::sample::select(&KEYS[..]), inner), 0..6),
                    any::<bool>()
                )
                    .prop_map(|(v, f)| Tree::Map(
                        v.into_iter().map(|(k, t)| (k.to_string(), t)).collect(),
                        f
                    )),
            ]
        })
    }

    fn quote(s: &str) -> String {
        serde_json::to_string(s).unwrap_or_default()
    }

    fn json(t: &Tree, pretty: bool, indent: usize, out: &mut String) {
        let nl = |out: &mut String, n: usize| {
            if pretty {
                out.push('\n');
                out.push_str(&" ".repeat(n));
            }
        };
        match t {
            Tree::Int(i) => out.push_str(&i.to_string()),
            Tree::Text(s) => out.push_str(&quote(s)),
            Tree::Seq(items, _) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    nl(out, indent + 2);
                    json(v, pretty, indent + 2, out);
                }
                if !items.is_empty() {
                    nl(out, indent);
                }
                out.push(']');
            }
            Tree::Map(entries, _) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    nl(out, indent + 2);
                    out.push_str(&quote(k));
                    out.push_str(": ");
                    json(v, pretty, indent + 2, out);
                }
                if !entries.is_empty() {
                    nl(out, indent);
                }
                out.push('}');
            }
        }
    }

    /// Block style, except for empty collections and those marked flow.
    fn yaml(t: &Tree, indent: usize, out: &mut String) {
        let inline = |v: &Tree| match v {
            Tree::Int(_) | Tree::Text(_) => true,
            Tree::Seq(items, flow) => *flow || items.is_empty(),
            Tree::Map(entries, flow) => *flow || entries.is_empty(),
        };
        let pad = " ".repeat(indent);
        let item = |lead: String, v: &Tree, out: &mut String| {
            out.push_str(&pad);
            out.push_str(&lead);
            if inline(v) {
                out.push(' ');
                json(v, false, 0, out);
                out.push('\n');
            } else {
                out.push('\n');
                yaml(v, indent + 2, out);
            }
        };
        match t {
            Tree::Seq(items, false) if !items.is_empty() => {
                for v in items {
                    item("-".into(), v, out);
                }
            }
            Tree::Map(entries, false) if !entries.is_empty() => {
                for (k, v) in entries {
                    item(format!("{}:", quote(k)), v, out);
                }
            }
            _ => {
                out.push_str(&pad);
                json(t, false, 0, out);
                out.push('\n');
            }
        }
    }

    /// Pointers that name no node, near the ones that do.
    fn probes(map: &BTreeMap<String, Location>) -> Vec<String> {
        let mut out = vec!["x".to_string(), "a/b".to_string(), "~".to_string()];
        for p in map.keys() {
            for tail in [
                "/zz", "/0", "/00", "/01", "/+1", "/-", "/~", "/~2", "/~01", "/", "/9",
            ] {
                out.push(format!("{p}{tail}"));
            }
            if let Some(rest) = p.strip_prefix('/') {
                out.push(rest.to_string());
            }
        }
        out
    }

    fn check(text: &str, path: &Path) -> Result<(), TestCaseError> {
        let node = if path.extension().is_some_and(|e| e == "json") {
            crate::json::parse(text, path)
        } else {
            crate::yaml::parse(text, path).map(|(n, _)| n)
        };
        let node = node.map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        let mut map = BTreeMap::new();
        reference(&node, String::new(), node.pos, &mut map);
        let doc = Document::parse(text, path).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(&doc.locations(), &map);
        for p in map.keys().cloned().chain(probes(&map)) {
            prop_assert_eq!(
                doc.locate(&p),
                reference_locate(&map, &p),
                "{}\n{}",
                p,
                text
            );
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn the_index_locates_as_the_pointer_map_did(t in tree(), pretty in any::<bool>()) {
            let mut j = String::new();
            json(&t, pretty, 0, &mut j);
            check(&j, Path::new("x.json"))?;
            let mut y = String::new();
            yaml(&t, 0, &mut y);
            check(&y, Path::new("x.yaml"))?;
        }
    }
}
