//! Verdicts back into OpenTelemetry: each clause verdict as a
//! `gen_ai.evaluation.result` event, written as an OTLP JSON logs document
//! (`docs/traces.md`, "Verdicts back into OpenTelemetry").
//!
//! One log record per clause (name `CONTRACT/CLAUSE`) and one per trace
//! (name `pactum`, the trace's status). Attributes follow the GenAI
//! semantic conventions: `gen_ai.evaluation.name`,
//! `gen_ai.evaluation.score.value`, `gen_ai.evaluation.score.label`,
//! `gen_ai.evaluation.explanation`; pactum adds `pactum.trace.id`,
//! `pactum.verdict` (the exact verdict) and `pactum.severity`.
//!
//! **Score mapping.** `satisfied` → 1 (`pass`), `partially_satisfied` →
//! 0.5 (`fail` on a prohibited clause, which it breaks; `partial` on a
//! required one), `violated` → 0 (`fail`), `not_evaluable` → no score
//! (`undetermined`), `not_triggered` → no score (`not_triggered`). The
//! trace record: its status as label (`pass`, `fail`, `undetermined`,
//! `error`) and `overall_score / 100` as value when there is one.
//!
//! **Links.** A trace imported from OTLP or Jaeger keeps its OpenTelemetry
//! trace ids and root span ids (metadata `otel_trace_ids`,
//! `otel_root_span_ids`); the records carry the first of them as
//! `traceId`/`spanId`. Any other trace (or an id that is not hex of the
//! right length) gets no link: never an invented one.
//!
//! **Keys.** Explanations are redacted of key-shaped tokens
//! ([`pactum_core::secret::key_tokens`]) besides the run's keys (the
//! [`crate::Redacting`] wrapper), then bounded to
//! [`EXPLANATION_CHARS`] characters.
//!
//! **Determinism.** No wall-clock time is written (`timeUnixNano` is left
//! out: the collector stamps `observedTimeUnixNano`); the same results give
//! the same bytes.

use std::io::Write;

use pactum_core::secret::{key_tokens, Redactor};
use pactum_core::trace::Trace;
use pactum_core::{ClauseKind, TestStatus, TraceResult, Verdict};
use serde_json::{json, Value};

use crate::{InputError, MissingTrial, ReportError, Reporter, RunEnd, RunInfo};

/// The event name of an evaluation result (GenAI semantic conventions).
pub const EVALUATION_EVENT: &str = "gen_ai.evaluation.result";
/// The most characters of an explanation written.
pub const EXPLANATION_CHARS: usize = 2000;

/// The OpenTelemetry trace and span a result is linked to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtelLink {
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// 16 lowercase hex digits.
    pub span_id: String,
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl OtelLink {
    /// The link of a trace read from OpenTelemetry spans: its first
    /// OpenTelemetry trace id and that trace's root span id; `None` for a
    /// trace of another format, or ids of the wrong shape.
    pub fn of(trace: &Trace) -> Option<OtelLink> {
        let m = trace.metadata.as_object()?;
        let tid = m.get("otel_trace_ids")?.as_array()?.first()?.as_str()?;
        let sid = m.get("otel_root_span_ids")?.as_array()?.first()?.as_str()?;
        let (tid, sid) = (tid.to_ascii_lowercase(), sid.to_ascii_lowercase());
        (is_hex(&tid, 32) && is_hex(&sid, 16)).then_some(OtelLink {
            trace_id: tid,
            span_id: sid,
        })
    }
}

/// The score value and label of one clause verdict (the mapping in the
/// module documentation).
pub fn clause_score(verdict: Verdict, kind: ClauseKind) -> (Option<f64>, &'static str) {
    match verdict {
        Verdict::Satisfied => (Some(1.0), "pass"),
        Verdict::PartiallySatisfied => (
            Some(0.5),
            if kind == ClauseKind::Prohibited {
                "fail"
            } else {
                "partial"
            },
        ),
        Verdict::Violated => (Some(0.0), "fail"),
        Verdict::NotEvaluable => (None, "undetermined"),
        Verdict::NotTriggered => (None, "not_triggered"),
    }
}

/// The label of a trace status.
pub fn status_label(s: TestStatus) -> &'static str {
    match s {
        TestStatus::Pass => "pass",
        TestStatus::Fail => "fail",
        TestStatus::Undetermined => "undetermined",
        TestStatus::Error => "error",
    }
}

/// `text` with key-shaped tokens redacted, bounded to
/// [`EXPLANATION_CHARS`] characters (an ellipsis marks a cut).
pub fn safe_explanation(text: &str) -> String {
    let tokens = key_tokens(text);
    let redacted = if tokens.is_empty() {
        text.to_string()
    } else {
        match Redactor::new(tokens) {
            Ok(r) => r.redact(text).into_owned(),
            // A token that cannot be searched for: say nothing rather than
            // risk showing it.
            Err(_) => "[redacted]".to_string(),
        }
    };
    if redacted.chars().count() <= EXPLANATION_CHARS {
        redacted
    } else {
        let mut s: String = redacted.chars().take(EXPLANATION_CHARS).collect();
        s.push('…');
        s
    }
}

fn attr_str(key: &str, v: &str) -> Value {
    json!({"key": key, "value": {"stringValue": v}})
}

fn attr_f64(key: &str, v: f64) -> Value {
    json!({"key": key, "value": {"doubleValue": v}})
}

fn record(
    name: &str,
    score: Option<f64>,
    label: &str,
    explanation: &str,
    extra: &[(&str, &str)],
    link: Option<&OtelLink>,
) -> Value {
    let mut attrs = vec![
        attr_str("event.name", EVALUATION_EVENT),
        attr_str("gen_ai.evaluation.name", name),
    ];
    if let Some(s) = score {
        attrs.push(attr_f64("gen_ai.evaluation.score.value", s));
    }
    attrs.push(attr_str("gen_ai.evaluation.score.label", label));
    attrs.push(attr_str(
        "gen_ai.evaluation.explanation",
        &safe_explanation(explanation),
    ));
    for (k, v) in extra {
        attrs.push(attr_str(k, v));
    }
    let mut r = serde_json::Map::new();
    r.insert("eventName".into(), json!(EVALUATION_EVENT));
    r.insert("severityNumber".into(), json!(9));
    r.insert("severityText".into(), json!("INFO"));
    r.insert("body".into(), json!({"stringValue": label}));
    r.insert("attributes".into(), Value::Array(attrs));
    if let Some(l) = link {
        r.insert("traceId".into(), json!(l.trace_id));
        r.insert("spanId".into(), json!(l.span_id));
    }
    Value::Object(r)
}

/// The log records of one graded trace: one per clause of each contract,
/// then one for the trace (module documentation).
pub fn evaluation_records(r: &TraceResult, link: Option<&OtelLink>) -> Vec<Value> {
    let mut out = Vec::new();
    let tid = r.trace_id.as_str();
    for c in &r.contracts {
        for cl in &c.clauses {
            let (score, label) = clause_score(cl.verdict, cl.kind);
            out.push(record(
                &format!("{}/{}", c.contract_id, cl.id),
                score,
                label,
                &cl.rationale,
                &[
                    ("pactum.trace.id", tid),
                    ("pactum.verdict", cl.verdict.as_str()),
                    ("pactum.severity", cl.severity.as_str()),
                ],
                link,
            ));
        }
    }
    out.push(record(
        "pactum",
        r.overall_score.map(|s| s / 100.0),
        status_label(r.status),
        &r.summary,
        &[("pactum.trace.id", tid)],
        link,
    ));
    out
}

/// The opening of an OTLP logs document, up to the first log record.
fn head() -> String {
    let resource = json!({"attributes": [attr_str("service.name", "pactum")]});
    let scope = json!({"name": "pactum", "version": env!("CARGO_PKG_VERSION")});
    format!(
        "{{\"resourceLogs\":[{{\"resource\":{resource},\"scopeLogs\":[{{\"scope\":{scope},\"logRecords\":["
    )
}

const TAIL: &str = "]}]}]}\n";

/// A whole OTLP/HTTP JSON logs body holding `records`.
pub fn logs_document(records: &[Value]) -> String {
    let mut s = head();
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&r.to_string());
    }
    s.push_str(TAIL);
    s
}

/// The `--otlp-out` report: streams every clause verdict as a
/// `gen_ai.evaluation.result` log record into one OTLP JSON logs document.
pub struct OtlpReporter<W: Write> {
    out: W,
    destination: String,
    begun: bool,
    finished: bool,
    written: u64,
    /// The trace id and link of the last transcript.
    link: Option<(String, Option<OtelLink>)>,
}

impl<W: Write> OtlpReporter<W> {
    /// A reporter writing to `out`.
    pub fn new(out: W) -> Self {
        OtlpReporter {
            out,
            destination: "the OTLP report".into(),
            begun: false,
            finished: false,
            written: 0,
            link: None,
        }
    }

    /// Names the destination (normally the report's path) in errors.
    pub fn with_destination(mut self, destination: impl Into<String>) -> Self {
        self.destination = destination.into();
        self
    }

    fn put(&mut self, s: &str) -> Result<(), ReportError> {
        self.out
            .write_all(s.as_bytes())
            .map_err(|e| ReportError::write(&self.destination, e))
    }

    fn check(&self, call: &'static str) -> Result<(), ReportError> {
        if self.finished {
            return Err(ReportError::Protocol {
                call,
                problem: "after finish",
            });
        }
        if !self.begun {
            return Err(ReportError::Protocol {
                call,
                problem: "before begin",
            });
        }
        Ok(())
    }
}

impl<W: Write> Reporter for OtlpReporter<W> {
    fn begin(&mut self, _info: &RunInfo) -> Result<(), ReportError> {
        if self.begun || self.finished {
            return Err(ReportError::Protocol {
                call: "begin",
                problem: "called twice",
            });
        }
        self.begun = true;
        let h = head();
        self.put(&h)
    }

    fn wants_transcripts(&self) -> bool {
        true
    }

    fn transcript(&mut self, trace: &Trace) -> Result<(), ReportError> {
        self.link = Some((trace.id.clone(), OtelLink::of(trace)));
        Ok(())
    }

    fn result(
        &mut self,
        r: &TraceResult,
        _expected: Option<TestStatus>,
    ) -> Result<(), ReportError> {
        self.check("result")?;
        // The link is the transcript's sent just before this result, when
        // it is this result's trace.
        let link = match self.link.take() {
            Some((id, link)) if id == r.trace_id => link,
            _ => None,
        };
        for rec in evaluation_records(r, link.as_ref()) {
            if self.written > 0 {
                self.put(",")?;
            }
            self.put(&rec.to_string())?;
            self.written += 1;
        }
        Ok(())
    }

    fn input_error(&mut self, _e: &InputError) -> Result<(), ReportError> {
        self.check("input_error")
    }

    fn missing_trial(&mut self, _m: &MissingTrial) -> Result<(), ReportError> {
        self.check("missing_trial")
    }

    fn finish(&mut self, _end: &RunEnd) -> Result<(), ReportError> {
        self.check("finish")?;
        self.finished = true;
        self.put(TAIL)?;
        self.out
            .flush()
            .map_err(|e| ReportError::write(&self.destination, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explanation_never_carries_a_key_and_is_bounded() {
        let key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678";
        let text = format!("the call sent {key} to the tool");
        let shown = safe_explanation(&text);
        assert!(!shown.contains(key), "{shown}");
        assert!(shown.contains("the call sent"), "{shown}");
        let long = "é".repeat(EXPLANATION_CHARS * 2);
        let cut = safe_explanation(&long);
        assert_eq!(cut.chars().count(), EXPLANATION_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn a_link_is_only_made_of_well_formed_ids() {
        let mut t = pactum_core::trace::Trace {
            id: "t".into(),
            ..serde_json::from_value(json!({"id": "t", "observability": "tool_calls", "turns": []}))
                .expect("trace")
        };
        t.metadata = json!({"otel_trace_ids": ["0af7651916cd43dd8448eb211c80319c"], "otel_root_span_ids": ["a000000000000001"]});
        assert!(OtelLink::of(&t).is_some());
        t.metadata =
            json!({"otel_trace_ids": ["not-hex"], "otel_root_span_ids": ["a000000000000001"]});
        assert_eq!(OtelLink::of(&t), None);
        t.metadata = json!({"otel_trace_ids": ["0af7651916cd43dd8448eb211c80319c"], "otel_root_span_ids": [null]});
        assert_eq!(OtelLink::of(&t), None);
    }

    #[test]
    fn every_verdict_maps_to_a_documented_label() {
        assert_eq!(
            clause_score(Verdict::Satisfied, ClauseKind::Required),
            (Some(1.0), "pass")
        );
        assert_eq!(
            clause_score(Verdict::Violated, ClauseKind::Prohibited),
            (Some(0.0), "fail")
        );
        assert_eq!(
            clause_score(Verdict::PartiallySatisfied, ClauseKind::Prohibited),
            (Some(0.5), "fail")
        );
        assert_eq!(
            clause_score(Verdict::NotEvaluable, ClauseKind::Required),
            (None, "undetermined")
        );
        assert_eq!(
            clause_score(Verdict::NotTriggered, ClauseKind::Required),
            (None, "not_triggered")
        );
    }
}
