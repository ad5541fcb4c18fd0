//! Semantic checks that a JSON Schema cannot express, run on the document's
//! JSON value (so they run, and report, even when the schema found other
//! problems): format version, regular expressions, JSON pointers, count
//! ranges, embedded JSON Schemas.

use std::collections::HashMap;

use pactum_core::contract::normalize_pointer;
use pactum_core::json::escape_pointer_token;
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::document::{check_pointer, short, Document, Part, Pos};

/// Collects semantic diagnostics about one document.
pub(crate) struct Checks<'a> {
    pub(crate) doc: &'a Document,
    pub(crate) out: &'a mut Vec<Diagnostic>,
}

impl Checks<'_> {
    /// `version` must be `supported` (when it is a whole number at all; the
    /// schema reports other types).
    pub(crate) fn version(&mut self, supported: u32, what: &str) {
        if let Some(v) = self.doc.value.pointer("/version").and_then(Value::as_u64) {
            if v != u64::from(supported) {
                self.out.push(
                    self.doc
                        .error(
                            "unsupported-version",
                            "/version",
                            Part::Value,
                            format!("{what} format version {v} is not supported"),
                        )
                        .with_hint(format!(
                            "this build reads {what} files of `version: {supported}`"
                        )),
                );
            }
        }
    }

    /// The string at `pointer`, when there is one, compiles as a regex.
    pub(crate) fn regex(&mut self, pointer: &str) {
        let Some(pattern) = self.doc.value.pointer(pointer).and_then(Value::as_str) else {
            return;
        };
        if let Err(e) = regex::Regex::new(pattern) {
            let is_json = self
                .doc
                .path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"));
            let hint = if is_json {
                "patterns use Rust `regex` syntax (no look-around, no backreferences); in JSON, a backslash is written `\\\\`"
            } else {
                "patterns use Rust `regex` syntax (no look-around, no backreferences); in YAML, write them in single quotes so backslashes stay as written"
            };
            self.out.push(
                self.doc
                    .error(
                        "invalid-regex",
                        pointer,
                        Part::Value,
                        format!("invalid regex `{}`: {}", short(pattern), regex_error(&e)),
                    )
                    .with_hint(hint),
            );
        }
    }

    /// A value matcher: a bare value (not null), or a mapping of
    /// conditions (see [`Checks::conditions`]).
    pub(crate) fn value_match(&mut self, pointer: &str) {
        match self.doc.value.pointer(pointer) {
            Some(Value::Null) => self.out.push(null_matcher(self.doc, pointer)),
            Some(Value::Object(_)) => self.conditions(pointer),
            _ => {}
        }
    }

    /// The conditions of a mapping that holds value conditions: its `regex`
    /// compiles, and its `equals`/`contains` are not null. (The model reads
    /// `equals: null` as "no condition", which would match every value.)
    pub(crate) fn conditions(&mut self, pointer: &str) {
        self.regex(&format!("{pointer}/regex"));
        for key in ["equals", "contains"] {
            let p = format!("{pointer}/{key}");
            if self.doc.value.pointer(&p).is_some_and(Value::is_null) {
                self.out.push(null_matcher(self.doc, &p));
            }
        }
    }

    /// A field match: `pointer` is a JSON pointer (or a plain key), plus
    /// value conditions.
    pub(crate) fn field_match(&mut self, pointer: &str) {
        let p = format!("{pointer}/pointer");
        if let Some(s) = self.doc.value.pointer(&p).and_then(Value::as_str) {
            if let Err(why) = check_pointer(&normalize_pointer(s)) {
                self.out
                    .push(invalid_pointer(self.doc, &p, Part::Value, &why));
            }
        }
        if self
            .doc
            .value
            .pointer(pointer)
            .is_some_and(Value::is_object)
        {
            self.conditions(pointer);
        }
    }

    /// A mapping from JSON pointer (or plain key) to value matcher: every
    /// key is a valid pointer, no two keys name the same pointer.
    pub(crate) fn pointer_map(&mut self, pointer: &str) {
        let Some(map) = self.doc.value.pointer(pointer).and_then(Value::as_object) else {
            return;
        };
        let mut seen: HashMap<String, (String, Pos)> = HashMap::new();
        for key in map.keys() {
            let child = format!("{pointer}/{}", escape_pointer_token(key));
            let normal = normalize_pointer(key);
            if let Err(why) = check_pointer(&normal) {
                self.out
                    .push(invalid_pointer(self.doc, &child, Part::Key, &why));
            }
            let here = self.doc.pos(&child, Part::Key);
            if let Some((first, at)) = seen.get(&normal) {
                self.out.push(
                    self.doc
                        .error(
                            "duplicate-pointer",
                            &child,
                            Part::Key,
                            format!(
                                "`{}` and `{}` name the same JSON pointer `{}`",
                                short(first),
                                short(key),
                                short(&normal)
                            ),
                        )
                        .with_hint(format!(
                            "merge the two conditions; the first is at line {}, column {}",
                            at.line, at.column
                        )),
                );
            } else {
                seen.insert(normal, (key.clone(), here));
            }
        }
        for key in map.keys() {
            self.value_match(&format!("{pointer}/{}", escape_pointer_token(key)));
        }
    }

    /// A count range: `min` ≤ `max` when both are given.
    pub(crate) fn count(&mut self, pointer: &str) {
        let get = |k: &str| {
            self.doc
                .value
                .pointer(&format!("{pointer}/{k}"))
                .and_then(Value::as_u64)
        };
        if let (Some(min), Some(max)) = (get("min"), get("max")) {
            if min > max {
                self.out.push(
                    self.doc
                        .error(
                            "count-range",
                            &format!("{pointer}/max"),
                            Part::Value,
                            format!("`max` ({max}) is less than `min` ({min})"),
                        )
                        .with_hint("no count satisfies this range, so the predicate could never detect anything; swap or fix the bounds"),
                );
            }
        }
    }

    /// The value at `pointer` (when present) is a JSON Schema `jsonschema`
    /// can compile; `origin` names the file it was inlined from, if any.
    pub(crate) fn json_schema(&mut self, pointer: &str, origin: Option<&str>) {
        let Some(schema) = self.doc.value.pointer(pointer) else {
            return;
        };
        // Compiled exactly as grading compiles it, so `check` and `grade`
        // accept the same schemas (formats asserted, unknown ones refused).
        if let Err(e) = pactum_eval::compile_json_schema(schema) {
            let inner = e.instance_path().as_str().to_string();
            let at = if origin.is_some() {
                pointer.to_string()
            } else {
                format!("{pointer}{inner}")
            };
            let place = match (origin, inner.is_empty()) {
                (Some(f), true) => format!(" in `{}`", short(f)),
                (Some(f), false) => format!(" in `{}` at `{}`", short(f), short(&inner)),
                (None, _) => String::new(),
            };
            self.out.push(
                self.doc
                    .error(
                        "invalid-json-schema",
                        &at,
                        Part::Value,
                        format!("invalid JSON Schema{place}: {}", short_line(&e.to_string())),
                    )
                    .with_hint("`json_schema` takes a JSON Schema (draft 2020-12 unless `$schema` says otherwise); remote `$ref`s are not fetched"),
            );
        }
    }
}

fn null_matcher(doc: &Document, pointer: &str) -> Diagnostic {
    doc.error(
        "null-matcher",
        pointer,
        Part::Value,
        "a null value condition cannot be told apart from no condition at all",
    )
    .with_hint("to require a missing or null value write `{ exists: false }`; to match the text \"null\", quote it")
}

fn invalid_pointer(doc: &Document, pointer: &str, part: Part, why: &str) -> Diagnostic {
    doc.error(
        "invalid-pointer",
        pointer,
        part,
        format!("invalid JSON pointer: {why}"),
    )
    .with_hint("a JSON pointer (RFC 6901) is `/`-separated keys, e.g. `/recipient` or `/recipients/0`; a plain key such as `recipient` means `/recipient`")
}

/// The regex crate's own explanation, without its multi-line diagram.
fn regex_error(e: &regex::Error) -> String {
    match e {
        regex::Error::Syntax(s) => s
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("error: "))
            .unwrap_or(s)
            .to_string(),
        regex::Error::CompiledTooBig(limit) => {
            format!("the compiled pattern is larger than the {limit}-byte limit")
        }
        other => other.to_string(),
    }
}

/// One line, bounded.
fn short_line(s: &str) -> String {
    pactum_core::text::truncate_chars(&s.split_whitespace().collect::<Vec<_>>().join(" "), 200)
}

/// Sorts diagnostics into reading order (file, line, column) and drops
/// exact duplicates (an aliased node is checked once per copy).
pub(crate) fn in_file_order(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by(|a, b| {
        (
            &a.file, a.line, a.column, a.level, &a.code, &a.message, &a.hint,
        )
            .cmp(&(
                &b.file, b.line, b.column, b.level, &b.code, &b.message, &b.hint,
            ))
    });
    diags.dedup();
    diags
}
