//! Where a pipeline sends what it has to say.

use pactum_core::secret::Redactor;
use pactum_core::{TestStatus, TraceResult};
use pactum_report::{
    Ahead, Fanout, InputError, MissingTrial, Prerender, Rendered, RunEnd, RunInfo,
};
use pactum_suite::Diagnostic;

/// How much a [`Message`] matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageLevel {
    /// Something the person should know; the command goes on.
    Warning,
    /// Something failed (the outcome says how the command ended).
    Error,
    /// A closing line (what was sent, what came from the cache).
    Info,
}

/// One line for the person running the command, outside the reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// How much it matters.
    pub level: MessageLevel,
    /// The text, without a `warning:`/`error:` prefix; untrusted parts
    /// are the front end's to strip before a terminal (SPEC §4).
    pub text: String,
}

/// A live run's progress: trials planned, trials done (stored or
/// restored), and the done ones by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Trials the run plans.
    pub planned: u64,
    /// Trials finished so far (those restored from an earlier attempt
    /// included).
    pub done: u64,
    /// Failed so far.
    pub fail: u64,
    /// Undetermined so far.
    pub undetermined: u64,
    /// Error so far.
    pub error: u64,
}

/// The consumer of a pipeline's events: report events (the same calls as
/// [`pactum_report::Reporter`], in the same order, but infallible: a
/// report that fails is the sink's to drop and remember, see
/// [`Sink::report_failed`]), and what a person should see beside them.
pub trait Sink {
    /// The run starts.
    fn begin(&mut self, info: &RunInfo);
    /// One graded trace (or trial), with its expected status when labelled.
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>);
    /// Which fragments of a result are worth rendering ahead, on the
    /// thread that made it, for [`Sink::result_rendered`]; by default none.
    fn prerender(&self) -> Prerender {
        Prerender::default()
    }
    /// What a pipeline may do ahead on the threads that grade
    /// ([`Ahead::render`]); by default, render [`Sink::prerender`]'s
    /// fragments of the result as it is.
    fn ahead(&self) -> Ahead {
        Ahead::from(self.prerender())
    }
    /// [`Sink::result`], with fragments of `r` rendered ahead
    /// ([`Rendered::of`]); by default they are ignored.
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) {
        let _ = rendered;
        self.result(r, expected);
    }
    /// The trace of the result that comes next, when the pipeline has it;
    /// the reports that show transcripts (the HTML page) get it redacted
    /// like every event.
    fn transcript(&mut self, _trace: &pactum_core::trace::Trace) {}
    /// Whether some report shows transcripts: only then does a live run
    /// hand each trial's trace to [`Sink::transcript`].
    fn wants_transcripts(&self) -> bool {
        false
    }
    /// How the authored test of the result that comes next was read
    /// (`run`, `show`, `rescore`): every report gets it, redacted; the
    /// JSON report writes it as that result's `interpretation`.
    fn reading(&mut self, _reading: &pactum_report::Reading) {}
    /// One input record that could not be read.
    fn input_error(&mut self, e: &InputError);
    /// One planned trial a stored run lacks.
    fn missing_trial(&mut self, m: &MissingTrial);
    /// The run ends: every report is completed and put in place.
    fn finish(&mut self, end: &RunEnd);
    /// Every later event is redacted of `redactor`'s secrets (SPEC §4).
    fn redact_with(&mut self, redactor: &Redactor);
    /// Whether a requested report could not be written in full (the
    /// outcome is then partial).
    fn report_failed(&self) -> bool;
    /// Diagnostics of a file the pipeline read (errors and warnings with
    /// file, line and field).
    fn diagnostics(&mut self, diags: &[Diagnostic]);
    /// A line for the person running the command.
    fn message(&mut self, m: Message);
    /// A live run's progress (called after every trial).
    fn progress(&mut self, _p: &Progress) {}
}

/// A [`Fanout`] is a sink that shows no diagnostics, messages or progress:
/// for front ends that only want the reports.
impl Sink for Fanout {
    fn begin(&mut self, info: &RunInfo) {
        self.each(|r| r.begin(info));
    }
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) {
        self.each(|rep| rep.result(r, expected));
    }
    fn prerender(&self) -> Prerender {
        Fanout::prerender(self)
    }
    fn ahead(&self) -> Ahead {
        Fanout::ahead(self)
    }
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) {
        self.each(|rep| rep.result_rendered(r, expected, rendered));
    }
    fn transcript(&mut self, trace: &pactum_core::trace::Trace) {
        Fanout::transcript(self, trace);
    }
    fn wants_transcripts(&self) -> bool {
        Fanout::wants_transcripts(self)
    }
    fn reading(&mut self, reading: &pactum_report::Reading) {
        Fanout::reading(self, reading);
    }
    fn input_error(&mut self, e: &InputError) {
        self.each(|r| r.input_error(e));
    }
    fn missing_trial(&mut self, m: &MissingTrial) {
        self.each(|r| r.missing_trial(m));
    }
    fn finish(&mut self, end: &RunEnd) {
        Fanout::finish(self, end);
    }
    fn redact_with(&mut self, redactor: &Redactor) {
        Fanout::redact_with(self, redactor);
    }
    fn report_failed(&self) -> bool {
        self.failed()
    }
    fn diagnostics(&mut self, _diags: &[Diagnostic]) {}
    fn message(&mut self, _m: Message) {}
}
