//! A parsed input file: its JSON value plus where every node was written.
//!
//! YAML (`yaml.rs`) and JSON (`json.rs`) are read into one spanned tree
//! (`Node`), which becomes a [`Document`]: a `serde_json::Value` and a map
//! from JSON pointer (RFC 6901) to the line and column of the node's key and
//! of its value. Schema validation and semantic checks address nodes by
//! pointer and use the map to locate their diagnostics.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use pactum_core::json::escape_pointer_token;
use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;

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
/// `locations` maps every JSON pointer of `value` (`""` is the root,
/// `/required/0/check`) to where it was written. `diagnostics` holds the
/// problems that did not stop parsing (a duplicate key: the first value is
/// kept); a caller must treat its errors as failing the file.
#[derive(Debug, Clone)]
pub struct Document {
    /// The file the document came from (as given, for diagnostics).
    pub path: PathBuf,
    /// The file's content as JSON.
    pub value: Value,
    /// JSON pointer → where the node was written.
    pub locations: BTreeMap<String, Location>,
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
        let (node, mut diagnostics) = if is_json {
            (crate::json::parse(src, path)?, Vec::new())
        } else {
            crate::yaml::parse(src, path)?
        };
        let mut doc = Document {
            path: path.to_path_buf(),
            value: Value::Null,
            locations: BTreeMap::new(),
            diagnostics: Vec::new(),
        };
        let root_pos = node.pos;
        doc.value = doc.absorb(node, String::new(), root_pos, &mut diagnostics);
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
        let mut p = pointer;
        loop {
            if let Some(l) = self.locations.get(p) {
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

    fn absorb(
        &mut self,
        node: Node,
        pointer: String,
        key_pos: Pos,
        diags: &mut Vec<Diagnostic>,
    ) -> Value {
        self.locations.insert(
            pointer.clone(),
            Location {
                key: key_pos,
                value: node.pos,
            },
        );
        match node.kind {
            NodeKind::Scalar(v) => v,
            NodeKind::Seq(items) => Value::Array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let pos = n.pos;
                        self.absorb(n, format!("{pointer}/{i}"), pos, diags)
                    })
                    .collect(),
            ),
            NodeKind::Map(entries) => {
                let mut map = Map::new();
                let mut first: HashMap<String, Pos> = HashMap::new();
                for e in entries {
                    if let Some(at) = first.get(&e.key) {
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
                    first.insert(e.key.clone(), e.key_pos);
                    let child = format!("{pointer}/{}", escape_pointer_token(&e.key));
                    let v = self.absorb(e.value, child, e.key_pos, diags);
                    map.insert(e.key, v);
                }
                Value::Object(map)
            }
        }
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
}
