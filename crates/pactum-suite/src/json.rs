//! The JSON reader. `serde_json` checks the syntax (its errors carry line
//! and column); a small scanner over the then known-good text records where
//! every key and value starts (nesting bounded at 128 levels, as for YAML),
//! and hands each string and number token back to `serde_json` to decode.

use std::path::Path;

use serde::de::IgnoredAny;
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::document::{Entry, Node, NodeKind, Pos, MAX_DEPTH};

/// Parses JSON text into the spanned tree.
///
/// # Errors
/// A syntax error (code `json-syntax`) at serde_json's line and column
/// (converted from bytes to characters); nesting deeper than 128 levels
/// (`too-deep`).
pub(crate) fn parse(src: &str, path: &Path) -> Result<Node, Vec<Diagnostic>> {
    if let Err(e) = serde_json::from_str::<IgnoredAny>(src) {
        let text = e.to_string();
        let message = match text.rfind(" at line ") {
            Some(i) => &text[..i],
            None => text.as_str(),
        };
        let column = char_column(src, e.line(), e.column());
        return Err(vec![Diagnostic::error(
            "json-syntax",
            path,
            e.line(),
            column,
            format!("invalid JSON: {message}"),
        )]);
    }
    let mut s = Scanner {
        src,
        at: 0,
        line: 1,
        column: 1,
        depth: 0,
        too_deep: None,
    };
    let internal = |pos: Pos| {
        vec![Diagnostic::error(
            "json-syntax",
            path,
            pos.line,
            pos.column,
            "invalid JSON",
        )]
    };
    s.skip_ws();
    match (s.value(), s.too_deep) {
        (_, Some(at)) => Err(vec![Diagnostic::error(
            "too-deep",
            path,
            at.line,
            at.column,
            format!("nesting deeper than {MAX_DEPTH} levels"),
        )
        .with_hint("flatten the structure")]),
        (Some(node), None) => Ok(node),
        (None, None) => Err(internal(s.pos())),
    }
}

/// serde_json counts columns in bytes; diagnostics count characters.
fn char_column(src: &str, line: usize, byte_col: usize) -> usize {
    let Some(text) = src.split('\n').nth(line.saturating_sub(1)) else {
        return byte_col;
    };
    let mut cut = byte_col.saturating_sub(1).min(text.len());
    while cut > 0 && !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text[..cut].chars().count() + 1
}

struct Scanner<'a> {
    src: &'a str,
    /// Byte offset.
    at: usize,
    line: usize,
    column: usize,
    depth: usize,
    too_deep: Option<Pos>,
}

impl Scanner<'_> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.bump();
        }
    }

    /// One value at the current position (whitespace already skipped).
    fn value(&mut self) -> Option<Node> {
        let pos = self.pos();
        if matches!(self.peek(), Some('{' | '[')) {
            if self.depth >= MAX_DEPTH {
                self.too_deep = Some(pos);
                return None;
            }
            self.depth += 1;
        }
        let node = self.value_at(pos);
        if node
            .as_ref()
            .is_some_and(|n| !matches!(n.kind, NodeKind::Scalar(_)))
        {
            self.depth -= 1;
        }
        node
    }

    fn value_at(&mut self, pos: Pos) -> Option<Node> {
        let kind = match self.peek()? {
            '{' => {
                self.bump();
                let mut entries = Vec::new();
                self.skip_ws();
                if self.peek() == Some('}') {
                    self.bump();
                } else {
                    loop {
                        self.skip_ws();
                        let key_pos = self.pos();
                        let Value::String(key) = self.string()? else {
                            return None;
                        };
                        self.skip_ws();
                        (self.bump()? == ':').then_some(())?;
                        self.skip_ws();
                        let value = self.value()?;
                        entries.push(Entry {
                            key,
                            key_pos,
                            value,
                        });
                        self.skip_ws();
                        match self.bump()? {
                            ',' => {}
                            '}' => break,
                            _ => return None,
                        }
                    }
                }
                // Without spare capacity: the tree is as large as the file.
                entries.shrink_to_fit();
                NodeKind::Map(entries)
            }
            '[' => {
                self.bump();
                let mut items = Vec::new();
                self.skip_ws();
                if self.peek() == Some(']') {
                    self.bump();
                } else {
                    loop {
                        self.skip_ws();
                        items.push(self.value()?);
                        self.skip_ws();
                        match self.bump()? {
                            ',' => {}
                            ']' => break,
                            _ => return None,
                        }
                    }
                }
                items.shrink_to_fit();
                NodeKind::Seq(items)
            }
            '"' => NodeKind::Scalar(self.string()?),
            _ => {
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.'))
                {
                    self.bump();
                }
                NodeKind::Scalar(serde_json::from_str(&self.src[start..self.at]).ok()?)
            }
        };
        Some(Node { pos, kind })
    }

    /// A string token, decoded by serde_json.
    fn string(&mut self) -> Option<Value> {
        let start = self.at;
        (self.bump()? == '"').then_some(())?;
        loop {
            match self.bump()? {
                '\\' => {
                    self.bump()?;
                }
                '"' => break,
                _ => {}
            }
        }
        serde_json::from_str::<String>(&self.src[start..self.at])
            .ok()
            .map(Value::String)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(src: &str) -> Node {
        parse(src, Path::new("x.json")).unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn positions_of_keys_and_values() {
        let n = p("{\n  \"a\": [1, \"é\\\"x\", {\"b\": null}],\n  \"c\": -1.5e3\n}");
        let NodeKind::Map(entries) = &n.kind else {
            panic!("not a map")
        };
        assert_eq!(n.pos, Pos { line: 1, column: 1 });
        assert_eq!(entries[0].key_pos, Pos { line: 2, column: 3 });
        assert_eq!(entries[0].value.pos, Pos { line: 2, column: 8 });
        let NodeKind::Seq(items) = &entries[0].value.kind else {
            panic!("not a seq")
        };
        assert_eq!(
            items[1].pos,
            Pos {
                line: 2,
                column: 12
            }
        );
        assert!(matches!(&items[1].kind, NodeKind::Scalar(v) if *v == json!("é\"x")));
        assert_eq!(
            items[2].pos,
            Pos {
                line: 2,
                column: 20
            }
        );
        assert_eq!(entries[1].key_pos, Pos { line: 3, column: 3 });
        assert!(matches!(&entries[1].value.kind, NodeKind::Scalar(v) if *v == json!(-1500.0)));
    }

    #[test]
    fn syntax_errors_are_located_in_characters() {
        let e = parse("{\"é\": [1,}", Path::new("x.json"))
            .err()
            .unwrap_or_default();
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].line, e[0].column), (1, 10));
        assert!(
            e[0].message.starts_with("invalid JSON: "),
            "{}",
            e[0].message
        );
    }
}
