//! Spans arriving over time (`pactum serve`): [`Assembler`] holds the
//! spans of each open OpenTelemetry trace, says when one is complete, and
//! builds it with the same code as a file import ([`super::build`]), one
//! OpenTelemetry trace per pactum trace (no grouping by conversation: a
//! live conversation never says it is over).
//!
//! Memory is bounded: at most [`LiveLimits::max_open_traces`] traces are
//! held and [`LiveLimits::max_spans_per_trace`] spans per trace. What does
//! not fit is dropped and counted, never silently: a trace that lost spans
//! is built `incomplete` (its absence checks come out undetermined) and
//! [`Built::lost_spans`] says how many, so a caller can keep it from
//! passing; spans of a trace refused for lack of room are counted in
//! [`Counters::refused_spans`], and later spans of that trace are refused
//! too (it is never graded from a part).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use pactum_core::trace::Trace;
use serde_json::Value;

use super::build::{self, OtelTrace, Out};
use super::span::{self, Span};
use crate::convert::shown;

/// How much an [`Assembler`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveLimits {
    /// Open OpenTelemetry traces held at once; spans of a new trace past
    /// this are refused.
    pub max_open_traces: usize,
    /// Spans held per trace; later ones are dropped and the trace is
    /// marked incomplete.
    pub max_spans_per_trace: usize,
}

/// Ids remembered of traces already graded or refused (so late spans are
/// dropped and counted, not graded as a trace of their own).
const REMEMBERED: usize = 100_000;

/// What an [`Assembler`] dropped, for the final summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Spans accepted.
    pub spans: u64,
    /// Spans dropped past the per-trace cap.
    pub dropped_spans: u64,
    /// Traces refused because the open-trace cap was reached.
    pub refused_traces: u64,
    /// Spans of refused traces.
    pub refused_spans: u64,
    /// Spans that arrived for a trace already built.
    pub late_spans: u64,
}

/// Why a request body was refused: one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyError(pub String);

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What [`Assembler::add`] did with one body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Added {
    /// Spans taken.
    pub accepted: u64,
    /// Spans dropped or refused.
    pub rejected: u64,
    /// One line per drop (a trace refused, a trace over its span cap, a
    /// late span), each said once per trace.
    pub notices: Vec<String>,
}

/// One trace handed out by [`Assembler::ready`] or [`Assembler::drain`].
#[derive(Debug)]
pub enum Built {
    /// A trace to grade. `lost_spans` > 0 means spans were dropped: it is
    /// `incomplete` and must not pass.
    Trace {
        /// The trace (id: the OpenTelemetry trace id).
        trace: Box<Trace>,
        /// Spans dropped from it.
        lost_spans: u64,
        /// Whether spans of it were lost (dropped past the cap, or in a
        /// refused body): it must not pass.
        partial: bool,
        /// Whether it was cut off at shutdown: built by
        /// [`Assembler::drain`] before its root span had ended (or
        /// arrived).
        cut_off: bool,
        /// When its last span arrived.
        last_span: Instant,
    },
    /// Spans with no LLM or tool span: nothing to grade.
    Skip {
        /// The OpenTelemetry trace id.
        trace_id: String,
        /// Why.
        reason: String,
    },
    /// A trace refused for lack of room (`--max-open-traces`): never
    /// graded, but recorded.
    Refused {
        /// The OpenTelemetry trace id.
        trace_id: String,
        /// Why.
        reason: String,
    },
    /// Spans that arrived after their trace was built and handed out:
    /// dropped, so the verdict given to it does not stand (what arrived
    /// may be the violation). Handed out once no more came for the quiet
    /// period, and at [`Assembler::drain`].
    Late {
        /// The OpenTelemetry trace id.
        trace_id: String,
        /// How many spans were dropped.
        spans: u64,
    },
    /// Spans that cannot be read as a trace (one line).
    Error {
        /// The OpenTelemetry trace id.
        trace_id: String,
        /// What is wrong.
        message: String,
    },
}

#[derive(Debug)]
struct Open {
    t: OtelTrace,
    last: Instant,
    lost: u64,
    /// Why the trace is incomplete besides lost spans (a refused body).
    refused_body: Option<String>,
}

/// Holds open traces until they complete (module documentation).
#[derive(Debug)]
pub struct Assembler {
    limits: LiveLimits,
    open: BTreeMap<String, Open>,
    /// Trace ids built (`false`) or refused (`true`).
    done: HashMap<String, bool>,
    done_order: VecDeque<String>,
    /// Trace ids named by a refused body before they were open: when they
    /// open, they are partial from the start.
    tainted: HashMap<String, String>,
    tainted_order: VecDeque<String>,
    /// Traces refused since the last [`Assembler::ready`].
    refused: Vec<Built>,
    /// Graded traces with spans that arrived since: how many, and when the
    /// last one did.
    late: BTreeMap<String, (u64, Instant)>,
    counters: Counters,
    source: String,
}

impl Assembler {
    /// An empty assembler; `source` names where spans come from in
    /// messages and the traces' `source` (e.g. `otlp://127.0.0.1:4318`).
    pub fn new(limits: LiveLimits, source: impl Into<String>) -> Assembler {
        Assembler {
            limits,
            open: BTreeMap::new(),
            done: HashMap::new(),
            done_order: VecDeque::new(),
            tainted: HashMap::new(),
            tainted_order: VecDeque::new(),
            refused: Vec::new(),
            late: BTreeMap::new(),
            counters: Counters::default(),
            source: source.into(),
        }
    }

    /// The drop counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Traces held now.
    pub fn open_traces(&self) -> usize {
        self.open.len()
    }

    fn remember(&mut self, id: String, refused: bool) {
        if self.done.insert(id.clone(), refused).is_none() {
            self.done_order.push_back(id);
            if self.done_order.len() > REMEMBERED {
                if let Some(old) = self.done_order.pop_front() {
                    self.done.remove(&old);
                }
            }
        }
    }

    /// Takes the spans of one OTLP JSON trace body
    /// (`ExportTraceServiceRequest`: `resourceSpans`…).
    ///
    /// # Errors
    /// A body that is not an OTLP trace document, or holds a span that
    /// cannot be read, is refused whole ([`BodyError`], one line) and
    /// nothing of it is kept; every trace it names that is held is marked
    /// incomplete, since the sender will not send those spans again.
    pub fn add(&mut self, doc: &Value, now: Instant) -> Result<Added, BodyError> {
        let (spans, errors) = span::otlp(doc, 1);
        if let Some(e) = errors.first() {
            let why = format!(
                "{}{}: {}",
                if e.field.is_empty() { "" } else { "at " },
                e.field,
                e.message
            );
            let why = why.trim_start_matches(": ").to_string();
            let named: HashSet<&str> = spans
                .iter()
                .map(|s| s.trace_id.as_str())
                .chain(errors.iter().filter_map(|e| e.trace_id.as_deref()))
                .collect();
            let note = format!("a body with its spans was refused ({why})");
            for id in named {
                match self.open.get_mut(id) {
                    Some(o) => {
                        o.refused_body.get_or_insert_with(|| note.clone());
                    }
                    None if !self.done.contains_key(id)
                        && self.tainted.insert(id.to_string(), note.clone()).is_none() =>
                    {
                        self.tainted_order.push_back(id.to_string());
                        if self.tainted_order.len() > REMEMBERED {
                            if let Some(old) = self.tainted_order.pop_front() {
                                self.tainted.remove(&old);
                            }
                        }
                    }
                    None => {}
                }
            }
            return Err(BodyError(why));
        }
        let mut out = Added::default();
        let mut said: HashSet<String> = HashSet::new();
        for s in spans {
            self.add_span(s, now, &mut out, &mut said);
        }
        Ok(out)
    }

    fn add_span(&mut self, s: Span, now: Instant, out: &mut Added, said: &mut HashSet<String>) {
        let id = s.trace_id.clone();
        if let Some(&refused) = self.done.get(&id) {
            out.rejected += 1;
            if refused {
                self.counters.refused_spans += 1;
                return;
            }
            self.counters.late_spans += 1;
            // Bounded like the ids remembered; past that, still counted.
            if self.late.len() < REMEMBERED || self.late.contains_key(&id) {
                let e = self.late.entry(id.clone()).or_insert((0, now));
                e.0 += 1;
                e.1 = now;
            }
            if said.insert(id.clone()) {
                out.notices.push(format!(
                    "trace {}: a span arrived after the trace was graded or refused: dropped",
                    shown(&id)
                ));
            }
            return;
        }
        if !self.open.contains_key(&id) && self.open.len() >= self.limits.max_open_traces {
            self.counters.refused_traces += 1;
            self.counters.refused_spans += 1;
            out.rejected += 1;
            out.notices.push(format!(
                "trace {}: refused, {} traces are open already (--max-open-traces): it will not be graded",
                shown(&id),
                self.limits.max_open_traces
            ));
            said.insert(id.clone());
            self.refused.push(Built::Refused {
                trace_id: id.clone(),
                reason: format!(
                    "refused: {} traces were open already (--max-open-traces); none of its spans was kept",
                    self.limits.max_open_traces
                ),
            });
            self.remember(id, true);
            return;
        }
        let max = self.limits.max_spans_per_trace;
        let tainted = &mut self.tainted;
        let o = self.open.entry(id.clone()).or_insert_with(|| Open {
            t: OtelTrace::default(),
            last: now,
            lost: 0,
            refused_body: tainted.remove(&id),
        });
        o.last = now;
        if o.t.spans.len() >= max {
            o.lost += 1;
            self.counters.dropped_spans += 1;
            out.rejected += 1;
            if o.lost == 1 {
                out.notices.push(format!(
                    "trace {}: more than {max} spans (--max-spans-per-trace): later spans dropped, the trace is incomplete",
                    shown(&id)
                ));
            }
            return;
        }
        self.counters.spans += 1;
        out.accepted += 1;
        o.t.spans.push(s);
    }

    /// Whether the trace's root span has ended: a span with an end time
    /// and no parent, or, while no span without a parent has arrived, one
    /// whose remote parent is not among the spans (the entry of a call
    /// from another process: this process's root).
    fn root_ended(o: &Open) -> bool {
        if o.t.spans.iter().any(|s| s.parent.is_none()) {
            return o
                .t
                .spans
                .iter()
                .any(|s| s.parent.is_none() && s.end.is_some());
        }
        let held = |p: &str| o.t.spans.iter().any(|s| s.span_id == p);
        o.t.spans.iter().any(|s| {
            s.end.is_some()
                && match s.parent.as_deref() {
                    None => true,
                    Some(p) => s.remote_parent && !held(p),
                }
        })
    }

    /// The traces refused since the last call ([`Built::Refused`]), then
    /// the traces complete at `now`: root span ended and no span for
    /// `quiet`, oldest last span first.
    pub fn ready(&mut self, now: Instant, quiet: Duration) -> Vec<Built> {
        let ids: Vec<String> = self
            .open
            .iter()
            .filter(|(_, o)| Self::root_ended(o) && now.saturating_duration_since(o.last) >= quiet)
            .map(|(k, _)| k.clone())
            .collect();
        let mut out = std::mem::take(&mut self.refused);
        out.extend(self.take(ids, false));
        let quiet_late: Vec<String> = self
            .late
            .iter()
            .filter(|(_, (_, last))| now.saturating_duration_since(*last) >= quiet)
            .map(|(k, _)| k.clone())
            .collect();
        out.extend(self.take_late(quiet_late));
        out
    }

    fn take_late(&mut self, ids: Vec<String>) -> Vec<Built> {
        ids.into_iter()
            .filter_map(|id| {
                let (spans, _) = self.late.remove(&id)?;
                Some(Built::Late {
                    trace_id: id,
                    spans,
                })
            })
            .collect()
    }

    /// The traces refused since the last call, then every trace held,
    /// complete or not (shutdown): a trace whose root span never ended is
    /// built incomplete ("cut off").
    pub fn drain(&mut self) -> Vec<Built> {
        let ids: Vec<String> = self.open.keys().cloned().collect();
        let mut out = std::mem::take(&mut self.refused);
        out.extend(self.take(ids, true));
        let late: Vec<String> = self.late.keys().cloned().collect();
        out.extend(self.take_late(late));
        out
    }

    fn take(&mut self, ids: Vec<String>, cut: bool) -> Vec<Built> {
        let mut outs: Vec<(Instant, String, Built)> = Vec::new();
        for id in ids {
            let Some(o) = self.open.remove(&id) else {
                continue;
            };
            self.remember(id.clone(), false);
            let unended = cut && !Self::root_ended(&o);
            let last = o.last;
            let partial = o.lost > 0 || o.refused_body.is_some();
            let built = match build::one_live(&id, o.t, &self.source) {
                Out::Trace(mut t) => {
                    // Every reason is said: a trace that lost spans and was
                    // also cut off is both.
                    let mut why: Vec<String> = Vec::new();
                    if o.lost > 0 {
                        why.push(format!(
                            "{} span(s) dropped past --max-spans-per-trace: the trace is incomplete",
                            o.lost
                        ));
                    }
                    why.extend(o.refused_body);
                    if unended {
                        why.push(
                            "its root span had not ended (or not arrived) when pactum serve stopped: cut off"
                                .to_string(),
                        );
                    }
                    why.extend(t.incomplete.take());
                    t.incomplete = (!why.is_empty()).then(|| why.join("; "));
                    Built::Trace {
                        trace: t,
                        lost_spans: o.lost,
                        partial,
                        cut_off: unended,
                        last_span: last,
                    }
                }
                Out::Skip { reason, .. } => Built::Skip {
                    trace_id: id.clone(),
                    reason,
                },
                Out::Error(e) => Built::Error {
                    trace_id: id.clone(),
                    message: match e.field {
                        Some(f) => format!("at {f}: {}", e.message),
                        None => e.message,
                    },
                },
            };
            outs.push((last, id, built));
        }
        outs.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        outs.into_iter().map(|(_, _, b)| b).collect()
    }
}
