//! The CLI's sink: the reports a command's flags ask for, and stderr for
//! diagnostics, messages and the progress bar.

use std::io::IsTerminal;

use pactum_core::secret::Redactor;
use pactum_core::{TestStatus, TraceResult};
use pactum_pipeline::{Message, MessageLevel, Progress, Sink};
use pactum_report::{
    Ahead, Fanout, InputError, MissingTrial, Prerender, Protected, Rendered, ReportRequest, RunEnd,
    RunInfo, TerminalOptions,
};
use pactum_suite::Diagnostic;

use crate::error::CliError;
use crate::output::{eprint, redact_output};
use crate::ReportArgs;

/// The reports of one command plus the terminal around them.
pub(crate) struct CliSink {
    fan: Fanout,
    /// Whether stderr may be coloured (diagnostics).
    diag_color: bool,
    /// Whether a progress bar may be drawn (stderr is a terminal, not
    /// `--quiet`).
    show_progress: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl CliSink {
    /// The reports `args` asks for, with `protected` paths refused as
    /// destinations; `color` is stdout's colour policy.
    ///
    /// # Errors
    /// A usage error naming the refused or uncreatable path.
    pub(crate) fn open(
        args: &ReportArgs,
        color: bool,
        protected: &[Protected],
    ) -> Result<CliSink, CliError> {
        let request = report_request(args, color);
        let fan = Fanout::open(&request, protected, Box::new(|m: &str| eprint(m)))
            .map_err(CliError::from)?;
        Ok(CliSink {
            fan,
            diag_color: crate::output::stderr_color(color),
            show_progress: !args.quiet && std::io::stderr().is_terminal(),
            bar: None,
        })
    }

    /// Refuses, before anything is opened, a report path of `args` that is
    /// one of `protected` ([`Fanout::check`]).
    ///
    /// # Errors
    /// A usage error naming the refused path.
    pub(crate) fn check(args: &ReportArgs, protected: &[Protected]) -> Result<(), CliError> {
        Fanout::check(&report_request(args, false), protected).map_err(CliError::from)
    }

    /// A sink with no report: diagnostics and messages on stderr only
    /// (commands that print their own summary); `color` is stdout's
    /// colour policy.
    pub(crate) fn stderr_only(color: bool) -> CliSink {
        CliSink {
            fan: Fanout::over(Vec::new(), Box::new(|m: &str| eprint(m))),
            diag_color: crate::output::stderr_color(color),
            show_progress: false,
            bar: None,
        }
    }

    /// Every later report event, and every later line on stderr, is
    /// redacted of `redactor`'s secrets (SPEC §4).
    pub(crate) fn redact_with(&mut self, redactor: &Redactor) {
        self.fan.redact_with(redactor);
        redact_output(redactor);
    }
}

/// The report request of a command's report flags.
pub(crate) fn report_request(args: &ReportArgs, color: bool) -> ReportRequest {
    ReportRequest {
        json: args.json.clone(),
        junit: args.junit.clone(),
        html: args.html.clone(),
        markdown: args.markdown.clone(),
        otlp: args.otlp_out.clone(),
        terminal: (!args.quiet).then_some(TerminalOptions {
            color,
            verbose: args.verbose,
            ..TerminalOptions::default()
        }),
    }
}

impl std::ops::Deref for CliSink {
    type Target = Fanout;
    fn deref(&self) -> &Fanout {
        &self.fan
    }
}

impl std::ops::DerefMut for CliSink {
    fn deref_mut(&mut self) -> &mut Fanout {
        &mut self.fan
    }
}

impl Sink for CliSink {
    fn begin(&mut self, info: &RunInfo) {
        Sink::begin(&mut self.fan, info);
    }
    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) {
        Sink::result(&mut self.fan, r, expected);
    }
    fn prerender(&self) -> Prerender {
        self.fan.prerender()
    }
    fn ahead(&self) -> Ahead {
        self.fan.ahead()
    }
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) {
        Sink::result_rendered(&mut self.fan, r, expected, rendered);
    }
    fn transcript(&mut self, trace: &pactum_core::trace::Trace) {
        Sink::transcript(&mut self.fan, trace);
    }
    fn wants_transcripts(&self) -> bool {
        Sink::wants_transcripts(&self.fan)
    }
    fn reading(&mut self, reading: &pactum_report::Reading) {
        Sink::reading(&mut self.fan, reading);
    }
    fn input_error(&mut self, e: &InputError) {
        Sink::input_error(&mut self.fan, e);
    }
    fn missing_trial(&mut self, m: &MissingTrial) {
        Sink::missing_trial(&mut self.fan, m);
    }
    fn finish(&mut self, end: &RunEnd) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        Sink::finish(&mut self.fan, end);
    }
    fn redact_with(&mut self, redactor: &Redactor) {
        CliSink::redact_with(self, redactor);
    }
    fn report_failed(&self) -> bool {
        self.fan.failed()
    }
    fn diagnostics(&mut self, diags: &[Diagnostic]) {
        crate::grade::print_diagnostics(diags, self.diag_color);
    }
    fn message(&mut self, m: Message) {
        let prefix = match m.level {
            MessageLevel::Warning => "warning: ",
            MessageLevel::Error => "error: ",
            MessageLevel::Info => "",
        };
        match &self.bar {
            Some(b) => b.suspend(|| eprint(&format!("{prefix}{}", m.text))),
            None => eprint(&format!("{prefix}{}", m.text)),
        }
    }
    fn progress(&mut self, p: &Progress) {
        if !self.show_progress {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new(p.planned);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {pos}/{len} trials [{elapsed_precise}] {wide_bar} {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        });
        bar.set_length(p.planned);
        bar.set_position(p.done);
        bar.set_message(format!(
            "{} fail, {} warn, {} err",
            p.fail, p.undetermined, p.error
        ));
    }
}
