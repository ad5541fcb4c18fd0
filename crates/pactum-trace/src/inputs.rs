//! What one run reads across all its trace files, noted so it is never
//! graded silently: the same file named twice, and trace ids that are
//! empty or used by two traces (reports, expected-status labels and stored
//! results name traces by id, so two traces with one id cannot be told
//! apart).
//!
//! Memory stays flat on big files: an id is kept as a 16-byte digest, and a
//! file by its identity ([`pactum_fs::FileId`], the one answer to "is this
//! the same file", shared with the reports' output checks).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use pactum_core::text::one_line;
use pactum_core::trace::Trace;
use pactum_fs::FileId;
use sha2::{Digest, Sha256};

/// Characters of a trace id shown in a warning.
const SHOWN: usize = 80;

/// One note about the inputs, for the report's warnings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputWarning {
    /// `repeated-input`, `empty-trace-id`, `repeated-trace-id` or
    /// `observability-contradicted`.
    pub code: &'static str,
    /// What was found and why it matters, naming the first occurrence.
    pub message: String,
}

/// Notes on a run's inputs (see the module docs). Feed it every file
/// before reading it ([`InputNotes::file`]) and every trace read
/// ([`InputNotes::trace`]); then take its [`InputNotes::warnings`].
#[derive(Debug, Default)]
pub struct InputNotes {
    /// Each file read, by identity, with the spelling it was first given.
    files: HashMap<FileId, String>,
    /// `(earlier spelling, later spelling, read again)` of each file
    /// given again.
    repeated_files: Vec<(String, String, bool)>,
    /// The current file was given before: its ids are not counted again.
    in_repeat: bool,
    /// Digests of the ids seen.
    ids: HashSet<[u8; 16]>,
    empty_ids: u64,
    first_empty: Option<String>,
    repeated_ids: u64,
    first_repeat: Option<(String, String)>,
    /// Traces whose declared level (`--observability`) says more than
    /// their spans show (metadata `observability_warning`, OpenTelemetry).
    contradicted: u64,
    first_contradicted: Option<(String, String, String)>,
}

/// `FILE:LINE` of a trace, or its id alone when it has no source.
fn place(trace: &Trace) -> String {
    trace
        .source
        .as_ref()
        .map_or_else(String::new, |s| format!("{}:{}", s.file, s.line))
}

impl InputNotes {
    /// Notes a file about to be read. Returns the spelling it was first
    /// given under when it is the same file as an earlier one (compared as
    /// files, not spellings, by [`FileId`]: symlinks, hard links, `./a` and
    /// `a`); it is then read again, and the warning says its traces are
    /// graded twice. A path that cannot be examined is not compared
    /// (reading it will fail and say why).
    pub fn file(&mut self, path: &Path) -> Option<String> {
        self.note_file(path, true)
    }

    /// As [`InputNotes::file`], for a command that reads each file once
    /// (`pactum strength`: a clean trace is one baseline): `false` when the
    /// file was given before, and must be skipped; the warning says so.
    pub fn file_once(&mut self, path: &Path) -> bool {
        self.note_file(path, false).is_none()
    }

    fn note_file(&mut self, path: &Path, read_again: bool) -> Option<String> {
        let shown = path.display().to_string();
        let Some(key) = FileId::of(path).ok().filter(FileId::exists) else {
            self.in_repeat = false;
            return None;
        };
        match self.files.get(&key) {
            Some(first) => {
                let first = first.clone();
                self.repeated_files.push((first.clone(), shown, read_again));
                self.in_repeat = true;
                Some(first)
            }
            None => {
                self.files.insert(key, shown);
                self.in_repeat = false;
                None
            }
        }
    }

    /// Notes one trace read from the current file.
    pub fn trace(&mut self, trace: &Trace) {
        if let Some(w) = trace
            .metadata
            .get("observability_warning")
            .and_then(serde_json::Value::as_str)
        {
            self.contradicted += 1;
            self.first_contradicted.get_or_insert_with(|| {
                (one_line(&trace.id, SHOWN), place(trace), one_line(w, 200))
            });
        }
        if self.in_repeat {
            return;
        }
        if trace.id.is_empty() {
            self.empty_ids += 1;
            self.first_empty.get_or_insert_with(|| place(trace));
            return;
        }
        let digest = Sha256::digest(trace.id.as_bytes());
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        if !self.ids.insert(key) {
            self.repeated_ids += 1;
            self.first_repeat
                .get_or_insert_with(|| (one_line(&trace.id, SHOWN), place(trace)));
        }
    }

    /// The warnings, in a fixed order: repeated files, empty ids, repeated
    /// ids, declared levels the data contradicts.
    pub fn warnings(&self) -> Vec<InputWarning> {
        let mut out = Vec::new();
        for (first, again, read_again) in &self.repeated_files {
            let what = if *read_again {
                "its traces are graded twice"
            } else {
                "it is read once"
            };
            out.push(InputWarning {
                code: "repeated-input",
                message: format!("{again} is the same file as {first}: {what}"),
            });
        }
        if let Some(at) = &self.first_empty {
            out.push(InputWarning {
                code: "empty-trace-id",
                message: format!(
                    "{} trace(s) have an empty id (first: {at}): reports, labels and stored results name traces by id",
                    self.empty_ids
                ),
            });
        }
        if let Some((id, at)) = &self.first_repeat {
            out.push(InputWarning {
                code: "repeated-trace-id",
                message: format!(
                    "{} trace(s) reuse the id of an earlier trace (first: `{id}` again at {at}): reports, labels and stored results cannot tell them apart",
                    self.repeated_ids
                ),
            });
        }
        if let Some((id, at, why)) = &self.first_contradicted {
            out.push(InputWarning {
                code: "observability-contradicted",
                message: format!(
                    "{} trace(s) declare an observability level their spans contradict (first: `{id}` at {at}: {why}): each is graded at the level the data shows",
                    self.contradicted
                ),
            });
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pactum_core::trace::{ObservabilityLevel, SourceRef};
    use serde_json::Value;

    fn trace(id: &str, line: u64) -> Trace {
        Trace {
            id: id.into(),
            observability: ObservabilityLevel::Full,
            turns: vec![],
            metadata: Value::Null,
            error: None,
            incomplete: None,
            ended_by: None,
            source: Some(SourceRef {
                file: "t.jsonl".into(),
                line,
            }),
            offered_tools: None,
        }
    }

    #[test]
    fn empty_and_repeated_ids_are_counted_and_the_first_named() {
        let mut n = InputNotes::default();
        for (id, line) in [
            ("a", 1),
            ("", 2),
            ("b", 3),
            ("a", 4),
            ("", 5),
            ("b", 6),
            ("a", 7),
        ] {
            n.trace(&trace(id, line));
        }
        let w = n.warnings();
        assert_eq!(
            w.iter().map(|w| w.code).collect::<Vec<_>>(),
            ["empty-trace-id", "repeated-trace-id"]
        );
        assert!(
            w[0].message
                .starts_with("2 trace(s) have an empty id (first: t.jsonl:2)"),
            "{w:?}"
        );
        assert!(
            w[1].message.starts_with(
                "3 trace(s) reuse the id of an earlier trace (first: `a` again at t.jsonl:4)"
            ),
            "{w:?}"
        );
        let mut clean = InputNotes::default();
        clean.trace(&trace("x", 1));
        clean.trace(&trace("y", 2));
        assert!(clean.warnings().is_empty());
    }

    #[test]
    fn the_same_file_under_another_spelling_is_noticed_and_its_ids_not_recounted() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        std::fs::write(&a, "{}").unwrap();
        let other = dir.path().join("b.jsonl");
        std::fs::write(&other, "{}").unwrap();
        let dotted = dir.path().join(".").join("a.jsonl");
        let mut n = InputNotes::default();
        assert_eq!(n.file(&a), None);
        n.trace(&trace("t1", 1));
        assert_eq!(n.file(&other), None);
        assert_eq!(n.file(&dotted), Some(a.display().to_string()));
        n.trace(&trace("t1", 1));
        #[cfg(unix)]
        {
            let link = dir.path().join("link.jsonl");
            std::os::unix::fs::symlink(&a, &link).unwrap();
            assert!(n.file(&link).is_some());
            let hard = dir.path().join("hard.jsonl");
            std::fs::hard_link(&a, &hard).unwrap();
            assert!(n.file(&hard).is_some());
        }
        // A missing path is not compared.
        assert_eq!(n.file(&dir.path().join("missing")), None);
        assert_eq!(n.file(&dir.path().join("missing")), None);
        let w = n.warnings();
        assert!(w.iter().all(|w| w.code == "repeated-input"), "{w:?}");
        assert_eq!(
            w[0].message,
            format!(
                "{} is the same file as {}: its traces are graded twice",
                dotted.display(),
                a.display()
            )
        );
    }

    #[test]
    fn a_file_read_once_is_skipped_the_second_time_and_said_so() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        std::fs::write(&a, "{}").unwrap();
        let dotted = dir.path().join(".").join("a.jsonl");
        let mut n = InputNotes::default();
        assert!(n.file_once(&a));
        n.trace(&trace("t1", 1));
        assert!(!n.file_once(&dotted));
        // A file given a third time, now to be read again, is noted too.
        assert!(n.file(&a).is_some());
        let w = n.warnings();
        assert_eq!(
            w.iter().map(|w| w.message.clone()).collect::<Vec<_>>(),
            [
                format!(
                    "{} is the same file as {}: it is read once",
                    dotted.display(),
                    a.display()
                ),
                format!(
                    "{} is the same file as {}: its traces are graded twice",
                    a.display(),
                    a.display()
                ),
            ]
        );
    }
}
