//! # pactum-report
//!
//! Reports over grading events: the terminal summary, the versioned JSON
//! report, JUnit XML, the agreement table (layouts in `docs/reports.md`),
//! and two reports rendered from the JSON report's own document: the
//! single-file HTML page ([`html`], `docs/html.md`) and the Markdown
//! summary. [`otlp`] writes each clause verdict as an OpenTelemetry
//! `gen_ai.evaluation.result` event (`--otlp-out`).
//!
//! The runner knows nothing of formats: it feeds every [`Reporter`] the same
//! events, one at a time — [`Reporter::begin`] once, then
//! [`Reporter::result`], [`Reporter::input_error`] and [`Reporter::missing_trial`] in any order, then
//! [`Reporter::finish`] once. Inputs can be huge, so no reporter keeps every
//! result: [`JsonReporter`] streams each result to its writer,
//! [`JunitReporter`] spools test cases to a temporary file, and
//! [`TerminalReporter`] keeps a bounded number of lines per status group.
//!
//! Untrusted text (trace ids, summaries, evidence, rationales) is stripped of
//! terminal escapes and bounded before it reaches a terminal or an XML file
//! (SPEC §4); the JSON report keeps it verbatim, JSON-escaped. A run's
//! secrets are redacted from every event by [`Redacting`], which wraps any
//! reporter.
//!
//! [`strength`] holds what `pactum strength`, `aggregate` and `compare`
//! print: their summary models and text renderers.

mod agreement;
mod document;
mod error;
mod fanout;
pub mod html;
mod json;
mod junit;
mod markdown;
mod model;
pub mod openprose;
pub mod otlp;
pub mod output;
mod redact;
mod render;
mod rendered;
mod secrets;
pub mod strength;
mod terminal;
mod totals;

pub use agreement::{AgreementTracker, DecidingClause, Disagreement, DECIDING_CLAUSES_KEPT};
pub use error::ReportError;
pub use fanout::{with_causes, FailureNotice, Fanout, ReportRequest, STDOUT};
pub use html::HtmlReporter;
pub use json::{terminal_safe_json, JsonReporter, INPUT_ERRORS_KEPT, REPORT_VERSION};
pub use junit::JunitReporter;
pub use markdown::{markdown_text, MarkdownReporter, MARKDOWN_BYTES};
pub use model::{
    AuthoredFields, ContractInfo, ConversationEnd, ExpectationsInfo, InputError, InputFile,
    MissingTrial, ReadClause, ReadContract, Reading, RunEnd, RunInfo, Warning,
};
pub use output::{check_outputs, Output, OutputFolder, Protected, ReportFile};
pub use redact::{Redacting, SharedRedactor};
pub use rendered::{Ahead, Prerender, Rendered};
pub use secrets::RedactedSecrets;
pub use terminal::{TerminalOptions, TerminalReporter};
pub use totals::Totals;

use pactum_core::{TestStatus, TraceResult};

/// A consumer of grading events (the runner's side of every report format).
///
/// Call order: `begin` once, then any number of `result`, `input_error`
/// and `missing_trial` calls, then `finish` once. Every reporter answers
/// [`ReportError::Protocol`] to an event after `finish`; the JSON report,
/// which writes its header in `begin`, also to `result` or `finish` before
/// `begin` and to a second `begin`. None panics.
pub trait Reporter {
    /// The run starts: command, version, policy, contracts, expectations.
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError>;
    /// One graded trace, with its expected status when expectations were
    /// given and the trace is labelled (`None` = unlabelled).
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError>;
    /// [`Reporter::result`], with fragments of `r` rendered ahead
    /// ([`Rendered::of`], on another thread): a reporter may write them
    /// instead of rendering `r` again; the report is the same. The default
    /// ignores them. A reporter that changes results before writing them
    /// ([`Redacting`]) must not pass them on.
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) -> Result<(), ReportError> {
        let _ = rendered;
        self.result(r, expected)
    }
    /// One input record that could not be read (the run is then partial).
    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError>;
    /// One trial a stored run planned but never stored (the run is then
    /// partial; the trial counts as an error).
    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError>;
    /// The run ends: per-file input counts and run-level warnings. Writes
    /// whatever the format writes last and flushes.
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError>;
    /// Whether this report shows transcripts ([`Reporter::transcript`]):
    /// only then does a pipeline's fan-out send them (and redact them).
    fn wants_transcripts(&self) -> bool {
        false
    }
    /// The trace (as graded, redacted like every event) of the result that
    /// comes next, sent just before it, when the pipeline has it (`grade`,
    /// `run`, `show`, `rescore`). Only the HTML page uses it; the default
    /// ignores it.
    fn transcript(&mut self, _trace: &pactum_core::trace::Trace) -> Result<(), ReportError> {
        Ok(())
    }
    /// How the authored test of the result that comes next was read, sent
    /// just before it (`run`, `show`, `rescore`; authored tests only). The
    /// JSON report writes it as that result's `interpretation`; the
    /// default ignores it.
    fn reading(&mut self, _reading: &Reading) -> Result<(), ReportError> {
        Ok(())
    }
    /// How many bytes of its report it has written so far (counted before
    /// any buffering), when everything it was sent is written out but what
    /// its `finish` writes: `None` while it holds an event's text for a
    /// later write (a reading waiting for its result), or when it cannot
    /// tell (the default). A report file redacted again because a secret
    /// was learnt late is redacted only up to such a point and from its
    /// `finish` on ([`Fanout::finish`]); without one, whole.
    fn settled(&self) -> Option<u64> {
        None
    }
}

impl<R: Reporter + ?Sized> Reporter for &mut R {
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        (**self).begin(info)
    }
    fn wants_transcripts(&self) -> bool {
        (**self).wants_transcripts()
    }
    fn transcript(&mut self, t: &pactum_core::trace::Trace) -> Result<(), ReportError> {
        (**self).transcript(t)
    }
    fn reading(&mut self, r: &Reading) -> Result<(), ReportError> {
        (**self).reading(r)
    }
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError> {
        (**self).result(r, expected)
    }
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) -> Result<(), ReportError> {
        (**self).result_rendered(r, expected, rendered)
    }
    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        (**self).input_error(e)
    }
    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        (**self).missing_trial(m)
    }
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        (**self).finish(end)
    }
    fn settled(&self) -> Option<u64> {
        (**self).settled()
    }
}

impl<R: Reporter + ?Sized> Reporter for Box<R> {
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        (**self).begin(info)
    }
    fn wants_transcripts(&self) -> bool {
        (**self).wants_transcripts()
    }
    fn transcript(&mut self, t: &pactum_core::trace::Trace) -> Result<(), ReportError> {
        (**self).transcript(t)
    }
    fn reading(&mut self, r: &Reading) -> Result<(), ReportError> {
        (**self).reading(r)
    }
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError> {
        (**self).result(r, expected)
    }
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) -> Result<(), ReportError> {
        (**self).result_rendered(r, expected, rendered)
    }
    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        (**self).input_error(e)
    }
    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        (**self).missing_trial(m)
    }
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        (**self).finish(end)
    }
    fn settled(&self) -> Option<u64> {
        (**self).settled()
    }
}

/// Fan-out: every event goes to each reporter in order; the first error
/// stops the event there and is returned (so a broken pipe on one reporter
/// is seen at once; the caller decides whether to drop that reporter).
impl<R: Reporter> Reporter for Vec<R> {
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        self.iter_mut().try_for_each(|r| r.begin(info))
    }
    fn wants_transcripts(&self) -> bool {
        self.iter().any(Reporter::wants_transcripts)
    }
    fn transcript(&mut self, t: &pactum_core::trace::Trace) -> Result<(), ReportError> {
        self.iter_mut()
            .filter(|r| r.wants_transcripts())
            .try_for_each(|r| r.transcript(t))
    }
    fn reading(&mut self, x: &Reading) -> Result<(), ReportError> {
        self.iter_mut().try_for_each(|r| r.reading(x))
    }
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError> {
        self.iter_mut().try_for_each(|x| x.result(r, expected))
    }
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) -> Result<(), ReportError> {
        self.iter_mut()
            .try_for_each(|x| x.result_rendered(r, expected, rendered))
    }
    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        self.iter_mut().try_for_each(|r| r.input_error(e))
    }
    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        self.iter_mut().try_for_each(|r| r.missing_trial(m))
    }
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        self.iter_mut().try_for_each(|r| r.finish(end))
    }
}
