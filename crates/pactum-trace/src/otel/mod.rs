//! OpenTelemetry traces → pactum traces: OTLP JSON ([`OtelKind::Otlp`])
//! and Jaeger JSON ([`OtelKind::Jaeger`]) files, read by the GenAI
//! semantic conventions (current and older) and OpenInference
//! ([`genai`]). `docs/traces.md` ("OpenTelemetry") is the user's guide.
//!
//! **Memory.** A trace's spans may sit anywhere in a file (the Collector's
//! file exporter writes one batch per line, spans in the order they ended),
//! so spans are held until the file ends — reduced on reading to their ids,
//! times, status and the attributes and events pactum reads
//! ([`span::kept`]). At most [`MAX_SPANS_PER_TRACE`] spans are held per
//! OpenTelemetry trace and [`MAX_SPANS`] per file; past either, the trace
//! (or the file) is refused, naming the cap, never cut silently.
//!
//! **Spans → traces** ([`build`]): OpenTelemetry traces are grouped into
//! one pactum trace by `gen_ai.conversation.id`, else `session.id`, else
//! their trace id (metadata `grouped_by` says which).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;

use pactum_core::trace::ObservabilityLevel;
use serde_json::Value;

use crate::convert::RecordCtx;
use crate::error::RecordError;
use crate::framing::Frame;
use crate::{Emitter, Framing, ImportError};

mod build;
mod genai;
pub mod live;
pub(crate) mod span;

/// Spans held per OpenTelemetry trace.
pub const MAX_SPANS_PER_TRACE: usize = 100_000;
/// Spans held per file.
pub const MAX_SPANS: usize = 2_000_000;

/// Which OpenTelemetry export a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OtelKind {
    /// OTLP JSON: `resourceSpans` (or Tempo's `batches`).
    Otlp,
    /// Jaeger JSON: `data[].spans[]`.
    Jaeger,
    /// A Langfuse trace export whose observations kept their OpenInference
    /// span attributes (`metadata.attributes`).
    LangfuseOtel,
    /// A LangSmith run tree (`crate::langsmith`): runs read as spans.
    Langsmith,
    /// A Langfuse export read by its own fields (`crate::langfuse`).
    Langfuse,
}

impl OtelKind {
    fn name(self) -> &'static str {
        match self {
            OtelKind::Otlp => "otlp",
            OtelKind::Jaeger => "jaeger",
            OtelKind::LangfuseOtel => "langfuse-otel",
            OtelKind::Langsmith => "langsmith",
            OtelKind::Langfuse => "langfuse",
        }
    }
}

/// Reads every span of the file, then builds and emits its traces in the
/// order of their first span's start time (then id).
pub(crate) fn read<T>(
    path: &Path,
    framing: Framing,
    which: OtelKind,
    level_flag: Option<ObservabilityLevel>,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let display = path.display().to_string();
    let name = crate::file_name(path);
    let mut by_trace: BTreeMap<String, build::OtelTrace> = BTreeMap::new();
    let mut total = 0usize;
    let mut early: Vec<RecordError> = Vec::new();
    let mut over: Option<u64> = None;
    crate::for_each_frame(path, framing, None, &mut |frame| {
        let (line, bytes) = match frame {
            Frame::Record { line, bytes, .. } => (line, bytes),
            Frame::Broken { line, message } => {
                early.push(RecordError::new(&display, line, None, message));
                return ControlFlow::Continue(());
            }
        };
        let ctx = RecordCtx {
            file: &display,
            file_name: &name,
            line,
            ordinal: None,
            line_framed: framing == Framing::Lines,
            level_flag,
        };
        let doc = match ctx.strict_value(bytes) {
            Ok(v) => v,
            Err(e) => {
                early.push(e);
                return ControlFlow::Continue(());
            }
        };
        let (spans, errors) = match which {
            OtelKind::Otlp => span::otlp(&doc, line),
            OtelKind::Jaeger => span::jaeger(&doc, line),
            OtelKind::LangfuseOtel => span::langfuse(&doc, line),
            OtelKind::Langsmith => crate::langsmith::spans(&doc, line),
            OtelKind::Langfuse => crate::langfuse::spans(&doc, line),
        };
        for e in errors {
            let re = RecordError::new(&display, line, Some(e.field), e.message);
            match e.trace_id {
                Some(t) => by_trace.entry(t).or_default().errors.push(re),
                None => early.push(re),
            }
        }
        for s in spans {
            total += 1;
            if total > MAX_SPANS {
                over = Some(line);
                return ControlFlow::Break(());
            }
            let t = by_trace.entry(s.trace_id.clone()).or_default();
            if t.spans.len() >= MAX_SPANS_PER_TRACE {
                if !t.over_cap {
                    t.over_cap = true;
                    t.errors.push(RecordError::new(
                        &display,
                        line,
                        None,
                        format!(
                            "trace `{}` has more than {MAX_SPANS_PER_TRACE} spans, the most pactum holds for one trace: refused, not cut",
                            crate::convert::shown(&s.trace_id)
                        ),
                    ));
                }
                continue;
            }
            t.spans.push(s);
        }
        ControlFlow::Continue(())
    })?;
    if let Some(line) = over {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!(
                "it holds more than {MAX_SPANS} spans (line {line}), the most pactum holds for one file; split it"
            ),
        });
    }
    for e in early {
        if emit.error(e).is_break() {
            return Ok(());
        }
    }
    // Langfuse and LangSmith hold what an app sent them, often without the
    // host's own root span: a parent they lack is no sign of a cut-off.
    let parents_held = matches!(which, OtelKind::Otlp | OtelKind::Jaeger);
    for out in build::build(by_trace, which.name(), &display, parents_held, level_flag) {
        let flow = match out {
            build::Out::Trace(t) => {
                let line = t.source.as_ref().map_or(1, |s| s.line);
                let ctx = RecordCtx {
                    file: &display,
                    file_name: &name,
                    line,
                    ordinal: None,
                    line_framed: framing == Framing::Lines,
                    level_flag,
                };
                emit.conv(crate::convert::Conv::Trace(*t), &ctx)?
            }
            build::Out::Skip { line, reason } => {
                emit.deliver(crate::Ready::Skip { line, reason })?
            }
            build::Out::Error(e) => emit.error(e),
        };
        if flow.is_break() {
            break;
        }
    }
    Ok(())
}

/// Whether a record is an OpenTelemetry export, and which.
pub(crate) fn sniff(v: &Value) -> Option<OtelKind> {
    if crate::langsmith::sniff(v) {
        return Some(OtelKind::Langsmith);
    }
    // A Langfuse export whose observations kept OpenInference attributes
    // is read by them (langfuse-otel); any other by its own fields.
    span::sniff(v).or_else(|| crate::langfuse::sniff(v).then_some(OtelKind::Langfuse))
}
