//! The versioned JSON report (every field in
//! `docs/reports.md`, schema in `schemas/report.schema.json`).
//!
//! One JSON document, written as the run goes: the header in `begin`, one
//! result per line as each arrives, and everything that needs the whole run
//! (inputs, input errors, warnings, totals, agreement) in `finish`. Memory
//! does not grow with the number of results.

use std::io::{self, BufWriter, Write};

use pactum_core::{Policy, TestStatus, TraceResult};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::agreement::AgreementTracker;
use crate::{InputError, MissingTrial, Rendered, ReportError, Reporter, RunEnd, RunInfo, Totals};

/// The report format version (`report_version`). Bumped on any change a
/// reader could notice, other than adding a field.
pub const REPORT_VERSION: u32 = 1;

/// Input errors (and missing trials) written in full; the rest are counted
/// in `input_errors_omitted` (`missing_trials_omitted`): they are the only
/// per-record data kept until the end, since they arrive interleaved with
/// results.
pub const INPUT_ERRORS_KEPT: usize = 10_000;

/// serde_json's compact output, except that characters a terminal may act
/// on and serde_json leaves raw (DEL, C1 controls such as U+009B CSI,
/// bidirectional overrides, line and paragraph separators) are written as
/// `\uXXXX` escapes: the report stays safe to `cat` (SPEC §4) and still
/// reads back to the very same strings.
struct TerminalSafe;

fn needs_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

impl serde_json::ser::Formatter for TerminalSafe {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if needs_escape(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// `json` (any valid JSON text) with the characters [`TerminalSafe`]
/// escapes written as `\uXXXX`: the same values, safe to print (SPEC §4).
/// Those characters can only occur inside JSON strings, so the result is
/// valid JSON that reads back to `json`'s values; it is not canonical
/// (RFC 8785) any more, so never digest it.
pub fn terminal_safe_json(json: &str) -> String {
    if !json.chars().any(needs_escape) {
        return json.to_string();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes `value` as compact, terminal-safe JSON.
fn write_json<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), serde_json::Error> {
    value.serialize(&mut serde_json::Serializer::with_formatter(
        out,
        TerminalSafe,
    ))
}

/// `value` as compact, terminal-safe JSON text.
fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    write_json(&mut out, value)?;
    // The serializer writes UTF-8 only; a failure here would be a serde_json bug.
    String::from_utf8(out).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    New,
    Open { results: u64 },
    Finished,
}

/// One element of `results`: the trace result, plus `expected` when the
/// trace is labelled.
#[derive(Serialize)]
struct ResultRecord<'a> {
    #[serde(flatten)]
    result: &'a TraceResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<TestStatus>,
    /// How an authored test was read, when the pipeline sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    interpretation: Option<&'a crate::Reading>,
    /// The page's copy only: the trace, when the pipeline sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    transcript: Option<&'a pactum_core::trace::Trace>,
}

/// Streams the JSON report to `W`.
#[derive(Debug)]
pub struct JsonReporter<W: Write> {
    out: BufWriter<W>,
    destination: String,
    state: State,
    line: Vec<u8>,
    totals: Totals,
    input_errors: Vec<InputError>,
    input_errors_omitted: u64,
    missing: Vec<MissingTrial>,
    missing_omitted: u64,
    agreement: Option<AgreementTracker>,
    /// The trace of the next result, for the HTML page's spooled copy
    /// (never set on a `--json` report).
    transcript: Option<pactum_core::trace::Trace>,
    /// How the next result's authored test was read.
    reading: Option<crate::Reading>,
    /// Bytes handed to `out` so far.
    written: u64,
}

impl<W: Write> JsonReporter<W> {
    /// Writes `trace` as the next result's `transcript` field. Only the
    /// HTML page's spooled document uses this: the `--json` report never
    /// holds transcripts.
    pub(crate) fn set_transcript(&mut self, trace: pactum_core::trace::Trace) {
        self.transcript = Some(trace);
    }

    /// A reporter writing to `out` (buffered internally); errors name it
    /// `the json report` (see [`JsonReporter::with_destination`]).
    pub fn new(out: W) -> Self {
        JsonReporter {
            out: BufWriter::new(out),
            destination: "the json report".to_string(),
            state: State::New,
            line: Vec::with_capacity(4096),
            totals: Totals::default(),
            input_errors: Vec::new(),
            input_errors_omitted: 0,
            missing: Vec::new(),
            missing_omitted: 0,
            agreement: None,
            transcript: None,
            reading: None,
            written: 0,
        }
    }

    /// Names the destination (normally the report's path) in error messages.
    pub fn with_destination(mut self, destination: impl Into<String>) -> Self {
        self.destination = destination.into();
        self
    }

    fn emit(&mut self, bytes: &[u8]) -> Result<(), ReportError> {
        self.written += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| ReportError::write(&self.destination, e))
    }

    fn fail(&self, e: serde_json::Error) -> ReportError {
        ReportError::write(&self.destination, io::Error::other(e))
    }

    /// Writes one result on its own line: `rendered` when given (the bytes
    /// [`result_json`] writes), else rendered here.
    fn write_result(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: Option<&[u8]>,
    ) -> Result<(), ReportError> {
        let State::Open { results } = self.state else {
            return Err(ReportError::Protocol {
                call: "result",
                problem: if self.state == State::New {
                    "before begin"
                } else {
                    "after finish"
                },
            });
        };
        self.totals.add(r.status);
        if let Some(a) = &mut self.agreement {
            a.record(r, expected);
        }
        let transcript = self.transcript.take();
        let reading = self.reading.take();
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        line.extend_from_slice(if results == 0 { b"\n    " } else { b",\n    " });
        // A line rendered ahead holds the result alone: with a reading or a
        // transcript to add, it is written here whole.
        let written = match rendered {
            Some(bytes) if transcript.is_none() && reading.is_none() => {
                line.extend_from_slice(bytes);
                Ok(())
            }
            _ => write_json(
                &mut line,
                &ResultRecord {
                    result: r,
                    expected,
                    interpretation: reading.as_ref(),
                    transcript: transcript.as_ref(),
                },
            ),
        };
        let outcome = match written {
            Ok(()) => self.emit(&line),
            Err(e) => Err(self.fail(e)),
        };
        self.line = line;
        self.state = State::Open {
            results: results + 1,
        };
        outcome
    }
}

/// One element of the report's `results` array, compact and terminal-safe,
/// appended to `out`: what [`JsonReporter`] writes for `r` (after its
/// separator and indent).
pub(crate) fn result_json(
    out: &mut Vec<u8>,
    r: &TraceResult,
    expected: Option<TestStatus>,
) -> Result<(), serde_json::Error> {
    write_json(
        out,
        &ResultRecord {
            result: r,
            expected,
            interpretation: None,
            transcript: None,
        },
    )
}

/// `{"severity_floor": …, …, "digest": "sha256:…"}`.
fn policy_json(policy: &Policy) -> Result<Value, serde_json::Error> {
    let mut v = serde_json::to_value(policy)?;
    if let Value::Object(m) = &mut v {
        m.insert("digest".into(), Value::String(policy.digest()));
    }
    Ok(v)
}

fn totals_json(t: &Totals) -> Value {
    json!({
        "traces": t.traces(),
        "pass": t.pass,
        "fail": t.fail,
        "undetermined": t.undetermined,
        "error": t.error,
        "input_errors": t.input_errors,
        "missing_trials": t.missing_trials,
        "partial": t.is_partial(),
    })
}

/// `confusion[expected][actual]`, keyed by status name.
fn confusion_json(a: &AgreementTracker) -> Value {
    let mut rows = Map::new();
    for expected in TestStatus::ALL {
        let mut row = Map::new();
        for actual in TestStatus::ALL {
            row.insert(
                actual.as_str().into(),
                a.confusion().get(expected, actual).into(),
            );
        }
        rows.insert(expected.as_str().into(), Value::Object(row));
    }
    Value::Object(rows)
}

/// `  "key": [\n    item,\n    item\n  ]` with one compact item per line.
fn array<T: Serialize>(
    s: &mut String,
    indent: &str,
    key: &str,
    items: &[T],
) -> Result<(), serde_json::Error> {
    s.push_str(&format!("{indent}\"{key}\": ["));
    for (i, item) in items.iter().enumerate() {
        s.push_str(if i == 0 { "\n" } else { ",\n" });
        s.push_str(indent);
        s.push_str("  ");
        s.push_str(&to_json(item)?);
    }
    if !items.is_empty() {
        s.push('\n');
        s.push_str(indent);
    }
    s.push(']');
    Ok(())
}

fn field<T: Serialize + ?Sized>(
    s: &mut String,
    indent: &str,
    key: &str,
    value: &T,
) -> Result<(), serde_json::Error> {
    s.push_str(&format!("{indent}\"{key}\": {}", to_json(value)?));
    Ok(())
}

fn agreement_json(s: &mut String, a: &AgreementTracker) -> Result<(), serde_json::Error> {
    let i = "    ";
    s.push_str("{\n");
    field(s, i, "path", &a.expectations().path)?;
    s.push_str(",\n");
    field(s, i, "pointer", &a.expectations().pointer)?;
    s.push_str(",\n");
    field(s, i, "labelled", &a.labelled())?;
    s.push_str(",\n");
    field(s, i, "unlabelled", &a.unlabelled())?;
    s.push_str(",\n");
    field(s, i, "confusion", &confusion_json(a))?;
    s.push_str(",\n");
    field(s, i, "accuracy", &a.accuracy())?;
    s.push_str(",\n");
    field(s, i, "kappa", &a.kappa())?;
    s.push_str(",\n");
    array(s, i, "disagreements", a.disagreements())?;
    s.push_str("\n  }");
    Ok(())
}

impl<W: Write> Reporter for JsonReporter<W> {
    /// Writes the header up to the opening of `results`.
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        if self.state != State::New {
            return Err(ReportError::Protocol {
                call: "begin",
                problem: "twice",
            });
        }
        self.agreement = info
            .expectations
            .as_ref()
            .map(|e| AgreementTracker::new(e, &info.policy));
        let header = (|| -> Result<String, serde_json::Error> {
            let i = "  ";
            let mut s = String::from("{\n");
            field(&mut s, i, "report_version", &REPORT_VERSION)?;
            s.push_str(",\n");
            field(
                &mut s,
                i,
                "tool",
                &json!({"name": "pactum", "version": info.pactum_version}),
            )?;
            s.push_str(",\n");
            field(&mut s, i, "command", &info.command)?;
            s.push_str(",\n");
            field(&mut s, i, "policy", &policy_json(&info.policy)?)?;
            s.push_str(",\n");
            array(&mut s, i, "contracts", &info.contracts)?;
            s.push_str(",\n");
            field(&mut s, i, "expectations", &info.expectations)?;
            s.push_str(",\n  \"results\": [");
            Ok(s)
        })()
        .map_err(|e| self.fail(e))?;
        self.state = State::Open { results: 0 };
        self.emit(header.as_bytes())
    }

    /// Writes one result on its own line.
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError> {
        self.write_result(r, expected, None)
    }

    /// As [`Reporter::result`], with the line rendered ahead when it was.
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) -> Result<(), ReportError> {
        self.write_result(r, expected, rendered.json.as_deref())
    }

    /// Each result is written as it comes; a reading or a transcript is
    /// held until its result, input errors, missing trials and the
    /// agreement until `finish`.
    fn settled(&self) -> Option<u64> {
        (self.reading.is_none() && self.transcript.is_none()).then_some(self.written)
    }

    /// Kept for the next result, written as its `interpretation`.
    fn reading(&mut self, r: &crate::Reading) -> Result<(), ReportError> {
        if self.state == State::Finished {
            return Err(ReportError::Protocol {
                call: "reading",
                problem: "after finish",
            });
        }
        self.reading = Some(r.clone());
        Ok(())
    }

    /// Keeps the first [`INPUT_ERRORS_KEPT`] input errors for `finish`.
    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        if self.state == State::Finished {
            return Err(ReportError::Protocol {
                call: "input_error",
                problem: "after finish",
            });
        }
        self.totals.add_input_error();
        if self.input_errors.len() < INPUT_ERRORS_KEPT {
            self.input_errors.push(e.clone());
        } else {
            self.input_errors_omitted += 1;
        }
        Ok(())
    }

    /// Keeps the first [`INPUT_ERRORS_KEPT`] missing trials for `finish`.
    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        if self.state == State::Finished {
            return Err(ReportError::Protocol {
                call: "missing_trial",
                problem: "after finish",
            });
        }
        self.totals.add_missing_trial();
        if self.missing.len() < INPUT_ERRORS_KEPT {
            self.missing.push(m.clone());
        } else {
            self.missing_omitted += 1;
        }
        Ok(())
    }

    /// Closes `results` and writes inputs, input errors, warnings, totals
    /// and agreement; then flushes.
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        let State::Open { results } = self.state else {
            return Err(ReportError::Protocol {
                call: "finish",
                problem: if self.state == State::New {
                    "before begin"
                } else {
                    "twice"
                },
            });
        };
        self.state = State::Finished;
        let tail = (|| -> Result<String, serde_json::Error> {
            let i = "  ";
            let mut s = String::from(if results == 0 { "],\n" } else { "\n  ],\n" });
            array(&mut s, i, "inputs", &end.inputs)?;
            s.push_str(",\n");
            array(&mut s, i, "input_errors", &self.input_errors)?;
            s.push_str(",\n");
            field(
                &mut s,
                i,
                "input_errors_omitted",
                &self.input_errors_omitted,
            )?;
            s.push_str(",\n");
            array(&mut s, i, "missing_trials", &self.missing)?;
            s.push_str(",\n");
            field(&mut s, i, "missing_trials_omitted", &self.missing_omitted)?;
            s.push_str(",\n");
            array(&mut s, i, "warnings", &end.warnings)?;
            s.push_str(",\n");
            field(&mut s, i, "totals", &totals_json(&self.totals))?;
            s.push_str(",\n  \"agreement\": ");
            match &self.agreement {
                Some(a) => agreement_json(&mut s, a)?,
                None => s.push_str("null"),
            }
            if !end.openprose.is_empty() {
                s.push_str(",\n");
                array(&mut s, i, "openprose", &end.openprose)?;
            }
            s.push_str("\n}\n");
            Ok(s)
        })()
        .map_err(|e| self.fail(e))?;
        self.emit(tail.as_bytes())?;
        self.out
            .flush()
            .map_err(|e| ReportError::write(&self.destination, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_made_terminal_safe_reads_back_the_same() {
        let v = serde_json::json!({"id": "a\u{202e}b\u{9b}c\u{7f}", "n": [1, "\u{2066}"]});
        let raw = serde_json::to_string(&v).expect("json");
        let safe = terminal_safe_json(&raw);
        assert!(!safe.chars().any(needs_escape), "{safe}");
        assert!(safe.contains("\\u202e"), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).expect("valid JSON");
        assert_eq!(back, v);
        assert_eq!(
            terminal_safe_json("{\"a\":\"plain é\"}"),
            "{\"a\":\"plain é\"}"
        );
    }

    #[test]
    fn characters_a_terminal_acts_on_are_escaped_and_read_back() {
        let raw = "a\u{7f}b\u{85}c\u{9b}31md\u{202e}e\u{2066}f\u{2028}g\u{1b}h\"i\\j\u{ffff}k é";
        let text = to_json(raw).expect("serialises");
        assert_eq!(
            text,
            "\"a\\u007fb\\u0085c\\u009b31md\\u202ee\\u2066f\\u2028g\\u001bh\\\"i\\\\j\u{ffff}k é\""
        );
        let back: String = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, raw);
    }
}
