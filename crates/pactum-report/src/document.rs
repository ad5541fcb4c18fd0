//! The JSON report read back, for the reports rendered from it (HTML,
//! Markdown): one source of truth, the document [`crate::JsonReporter`]
//! wrote.
//!
//! [`Spooled`] writes the JSON report to an anonymous temporary file while
//! the run goes on; at `finish` the document is read back with
//! [`read_document`], which hands over `results` one element at a time
//! (memory follows one result, not the run) and keeps every other field.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use pactum_core::{TestStatus, TraceResult};
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::{InputError, JsonReporter, MissingTrial, ReportError, Reporter, RunEnd, RunInfo};

/// A report rendered from the finished JSON document.
pub(crate) trait Render {
    /// Writes the rendered report of the document `doc` (a seekable
    /// reader positioned at its start) to `out`.
    fn render(&mut self, doc: &mut BufReader<File>, out: &mut dyn Write)
        -> Result<(), RenderError>;
}

/// Why a rendered report could not be produced.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RenderError {
    /// The spooled document could not be read.
    #[error("cannot read the spooled json report")]
    Spool(#[source] io::Error),
    /// The document does not have the shape the JSON report writes (a bug:
    /// it was written by this very crate).
    #[error("the spooled json report is malformed: {0}")]
    Malformed(String),
    /// A template failed.
    #[error("cannot render the report: {0}")]
    Template(String),
    /// Writing to the destination failed.
    #[error("cannot write the report")]
    Write(#[source] io::Error),
}

/// A reporter that spools the JSON report and, at `finish`, renders
/// another format from it with `R` to `out`.
pub(crate) struct Spooled<W: Write, R: Render> {
    json: JsonReporter<File>,
    spool: File,
    renderer: R,
    out: W,
    destination: String,
    report: &'static str,
    /// Whether the spooled document keeps each result's transcript.
    transcripts: bool,
}

impl<W: Write, R: Render> Spooled<W, R> {
    /// A reporter rendering `report` (its name in messages, e.g. `html`)
    /// with `renderer` to `out`.
    pub(crate) fn new(out: W, renderer: R, report: &'static str) -> Result<Self, ReportError> {
        let spool = tempfile::tempfile().map_err(|e| ReportError::spool(report, e))?;
        let writer = spool
            .try_clone()
            .map_err(|e| ReportError::spool(report, e))?;
        Ok(Spooled {
            json: JsonReporter::new(writer).with_destination(format!("the {report} spool file")),
            spool,
            renderer,
            out,
            destination: format!("the {report} report"),
            report,
            transcripts: false,
        })
    }

    /// Keeps the transcript the pipeline sends before each result in the
    /// spooled document (its `transcript` field).
    pub(crate) fn with_transcripts(mut self) -> Self {
        self.transcripts = true;
        self
    }

    /// Names the destination (normally the report's path) in error messages.
    pub(crate) fn with_destination(mut self, destination: impl Into<String>) -> Self {
        self.destination = destination.into();
        self
    }
}

impl<W: Write, R: Render> Reporter for Spooled<W, R> {
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        self.json.begin(info)
    }
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError> {
        self.json.result(r, expected)
    }
    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        self.json.input_error(e)
    }
    fn wants_transcripts(&self) -> bool {
        self.transcripts
    }
    fn transcript(&mut self, t: &pactum_core::trace::Trace) -> Result<(), ReportError> {
        if self.transcripts {
            // The conversation, not the record's other fields (a `field`
            // check's evidence already shows the value it read).
            let mut t = t.clone();
            t.metadata = Value::Null;
            self.json.set_transcript(t);
        }
        Ok(())
    }
    fn reading(&mut self, r: &crate::Reading) -> Result<(), ReportError> {
        self.json.reading(r)
    }
    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        self.json.missing_trial(m)
    }
    /// Completes the JSON document, then renders it to the destination.
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        self.json.finish(end)?;
        let report = self.report;
        self.spool
            .seek(SeekFrom::Start(0))
            .map_err(|e| ReportError::spool(report, e))?;
        let mut doc = BufReader::new(
            self.spool
                .try_clone()
                .map_err(|e| ReportError::spool(report, e))?,
        );
        let mut out = BufWriter::new(&mut self.out);
        let rendered = self
            .renderer
            .render(&mut doc, &mut out)
            .and_then(|()| out.flush().map_err(RenderError::Write));
        match rendered {
            Ok(()) => Ok(()),
            Err(RenderError::Write(e)) => Err(ReportError::write(&self.destination, e)),
            Err(RenderError::Spool(e)) => Err(ReportError::spool(report, e)),
            Err(e) => Err(ReportError::write(
                &self.destination,
                io::Error::other(e.to_string()),
            )),
        }
    }
}

/// What [`read_document`] calls with each result: the header read so far
/// and the result; an `Err` stops the reading with that message.
pub(crate) type OnResult<'a> =
    dyn FnMut(&Map<String, Value>, ResultEntry) -> Result<(), String> + 'a;

/// One element of `results` read back: the typed result (what grading
/// produced), its label, and the element as written.
#[derive(Debug, Clone)]
pub(crate) struct ResultEntry {
    /// 0-based position in `results` (input order).
    pub index: usize,
    /// The result, typed.
    pub result: TraceResult,
    /// The label, when the trace is labelled.
    pub expected: Option<TestStatus>,
    /// The trace, when the page's document holds it.
    pub transcript: Option<pactum_core::trace::Trace>,
    /// How its authored test was read, when it is one.
    pub reading: Option<crate::Reading>,
}

impl ResultEntry {
    fn of(index: usize, mut v: Value) -> Result<ResultEntry, String> {
        let expected = match v.as_object_mut().and_then(|m| m.remove("expected")) {
            Some(e) => Some(
                serde_json::from_value(e).map_err(|e| format!("result {index}: expected: {e}"))?,
            ),
            None => None,
        };
        let transcript = match v.as_object_mut().and_then(|m| m.remove("transcript")) {
            Some(t) => Some(
                serde_json::from_value(t)
                    .map_err(|e| format!("result {index}: transcript: {e}"))?,
            ),
            None => None,
        };
        let reading = match v.as_object_mut().and_then(|m| m.remove("interpretation")) {
            Some(r) => Some(
                serde_json::from_value(r)
                    .map_err(|e| format!("result {index}: interpretation: {e}"))?,
            ),
            None => None,
        };
        let result = serde_json::from_value(v).map_err(|e| format!("result {index}: {e}"))?;
        Ok(ResultEntry {
            index,
            result,
            expected,
            transcript,
            reading,
        })
    }
}

/// Reads a JSON report document: calls `on_result` with each element of
/// `results`, in order, and the fields read before `results` (the header:
/// command, policy, contracts…), and returns every top-level field but
/// `results`.
///
/// # Errors
/// [`RenderError::Malformed`] when the text is not a JSON report (or
/// `on_result`'s own error), [`RenderError::Spool`] when it cannot be read.
pub(crate) fn read_document<R: Read>(
    reader: R,
    on_result: &mut OnResult,
) -> Result<Map<String, Value>, RenderError> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    // The document is the reporter's own spool, never outside input: every
    // value in it was read (trace, answer, judge) with serde_json's limit
    // of 128 levels, and the report adds its own few levels above that, so
    // a value the JSON report holds must read back here too (SPEC §4:
    // rendering a value never aborts a summary). The depth stays bounded
    // by that first reading.
    de.disable_recursion_limit();
    let head = Document { on_result }
        .deserialize(&mut de)
        .map_err(json_error)?;
    de.end().map_err(json_error)?;
    Ok(head)
}

fn json_error(e: serde_json::Error) -> RenderError {
    if e.is_io() {
        RenderError::Spool(io::Error::other(e.to_string()))
    } else {
        RenderError::Malformed(e.to_string())
    }
}

struct Document<'f, 'a> {
    on_result: &'f mut OnResult<'a>,
}

impl<'de> DeserializeSeed<'de> for Document<'_, '_> {
    type Value = Map<String, Value>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Document<'_, '_> {
    type Value = Map<String, Value>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a pactum JSON report")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut head = Map::new();
        let mut seen_results = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "results" {
                seen_results = true;
                map.next_value_seed(Results {
                    head: &head,
                    on_result: &mut *self.on_result,
                })?;
            } else {
                let v: Value = map.next_value()?;
                head.insert(key, v);
            }
        }
        if !seen_results {
            return Err(serde::de::Error::missing_field("results"));
        }
        Ok(head)
    }
}

struct Results<'f, 'a> {
    head: &'f Map<String, Value>,
    on_result: &'f mut OnResult<'a>,
}

impl<'de> DeserializeSeed<'de> for Results<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Results<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the array of results")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(v) = seq.next_element::<Value>()? {
            let entry = ResultEntry::of(index, v).map_err(serde::de::Error::custom)?;
            (self.on_result)(self.head, entry).map_err(serde::de::Error::custom)?;
            index += 1;
        }
        Ok(())
    }
}

/// Copies the JSON document `doc` to `out` escaped for the inside of an
/// HTML `<script type="application/json">` element: `<`, `>` and `&`
/// become `\u003c`, `\u003e`, `\u0026`, and U+2028, U+2029 become
/// `\u2028`, `\u2029`. In a JSON document those characters can only occur
/// inside strings, where the escapes read back to the same characters, so
/// `JSON.parse` of the element's text gives the document's values, and no
/// `</script`, `<!--` or `<script` can end or change the element.
pub(crate) fn copy_for_script(
    doc: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), RenderError> {
    let mut line = String::new();
    loop {
        line.clear();
        let n = doc.read_line(&mut line).map_err(RenderError::Spool)?;
        if n == 0 {
            return Ok(());
        }
        out.write_all(script_json(&line).as_bytes())
            .map_err(RenderError::Write)?;
    }
}

/// `json` escaped for an HTML `<script>` data block (see
/// [`copy_for_script`]).
pub(crate) fn script_json(json: &str) -> std::borrow::Cow<'_, str> {
    if !json
        .chars()
        .any(|c| matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}'))
    {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut s = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => s.push_str("\\u003c"),
            '>' => s.push_str("\\u003e"),
            '&' => s.push_str("\\u0026"),
            '\u{2028}' => s.push_str("\\u2028"),
            '\u{2029}' => s.push_str("\\u2029"),
            c => s.push(c),
        }
    }
    std::borrow::Cow::Owned(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever a string holds, its JSON escaped for a script block
        /// reads back to the same string, and holds none of the characters
        /// that could end or alter the element.
        #[test]
        fn script_json_reads_back_and_cannot_break_out(s in any::<String>(), extra in prop::collection::vec(prop::sample::select(vec![
            "</script>", "<!--", "<script>", "]]>", "\u{2028}", "\u{2029}", "&lt;", "</SCRIPT ", "-->",
        ]), 0..4)) {
            let mut text = s.clone();
            for e in &extra { text.push_str(e); }
            let v = serde_json::json!({"k": text, "n": [text.clone()]});
            let raw = serde_json::to_string(&v).expect("json");
            let safe = script_json(&raw);
            let breaks = safe.contains(['<', '>', '&', '\u{2028}', '\u{2029}']);
            prop_assert!(!breaks, "{}", safe);
            let back: Value = serde_json::from_str(&safe).expect("valid json");
            prop_assert_eq!(back, v);
        }
    }

    #[test]
    fn a_document_is_read_result_by_result() {
        let doc = r#"{"a": 1, "results": [], "b": [2]}"#;
        let mut n = 0;
        let head = read_document(doc.as_bytes(), &mut |_, _| {
            n += 1;
            Ok(())
        })
        .expect("reads");
        assert_eq!(n, 0);
        assert_eq!(head.keys().collect::<Vec<_>>(), ["a", "b"]);
        // A document with no results is not a report.
        assert!(matches!(
            read_document(r#"{"a": 1}"#.as_bytes(), &mut |_, _| Ok(())),
            Err(RenderError::Malformed(_))
        ));
        // Nor is a result that is not one.
        assert!(matches!(
            read_document(r#"{"results": [{"x": 1}]}"#.as_bytes(), &mut |_, _| Ok(())),
            Err(RenderError::Malformed(_))
        ));
    }
}
