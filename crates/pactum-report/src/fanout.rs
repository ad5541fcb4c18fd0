//! Every report a command asked for, fed the same events: [`Fanout`].

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use pactum_core::secret::Redactor;

use crate::otlp::OtlpReporter;
use crate::{
    check_outputs, Ahead, HtmlReporter, JsonReporter, JunitReporter, MarkdownReporter, Output,
    Prerender, Protected, Redacting, ReportError, ReportFile, Reporter, RunEnd, SharedRedactor,
    TerminalOptions, TerminalReporter,
};

/// The report path that means standard output.
pub const STDOUT: &str = "-";

/// Which reports to write: the shape of the report flags shared by
/// `grade`, `run`, `show` and `rescore`.
#[derive(Debug, Clone, Default)]
pub struct ReportRequest {
    /// The versioned JSON report: a file, or [`STDOUT`].
    pub json: Option<PathBuf>,
    /// JUnit XML: a file, or [`STDOUT`].
    pub junit: Option<PathBuf>,
    /// The single-file HTML page (`docs/html.md`): a file, or [`STDOUT`].
    pub html: Option<PathBuf>,
    /// The Markdown summary (`docs/reports.md`): a file, or [`STDOUT`].
    pub markdown: Option<PathBuf>,
    /// Every clause verdict as an OpenTelemetry `gen_ai.evaluation.result`
    /// event, in an OTLP JSON logs document ([`crate::otlp`]): a file, or
    /// [`STDOUT`].
    pub otlp: Option<PathBuf>,
    /// The terminal summary on stdout, unless `None` (`--quiet`) or a
    /// report goes to stdout (which then replaces it).
    pub terminal: Option<TerminalOptions>,
}

impl ReportRequest {
    /// Whether a report goes to standard output (`--json -`, `--junit -`,
    /// `--html -`, `--markdown -`), which then replaces the terminal
    /// summary.
    pub fn to_stdout(&self) -> bool {
        [
            &self.json,
            &self.junit,
            &self.html,
            &self.markdown,
            &self.otlp,
        ]
        .into_iter()
        .any(|p| p.as_deref().is_some_and(|p| p.as_os_str() == STDOUT))
    }
}

/// A report format [`Fanout::open`] can write to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Junit,
    Html,
    Markdown,
    Otlp,
}

impl Format {
    /// The report's name in messages.
    fn name(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Junit => "JUnit",
            Format::Html => "HTML",
            Format::Markdown => "Markdown",
            Format::Otlp => "OTLP",
        }
    }

    /// A reporter of this format writing to `out`; `destination` names the
    /// file in its messages.
    fn reporter(
        self,
        out: Box<dyn Write + Send>,
        destination: Option<String>,
    ) -> Result<Box<dyn Reporter + Send>, ReportError> {
        let out = BufWriter::new(out);
        Ok(match (self, destination) {
            (Format::Json, Some(d)) => Box::new(JsonReporter::new(out).with_destination(d)),
            (Format::Json, None) => Box::new(JsonReporter::new(out)),
            (Format::Junit, Some(d)) => Box::new(JunitReporter::new(out).with_destination(d)),
            (Format::Junit, None) => Box::new(JunitReporter::new(out)),
            (Format::Html, Some(d)) => Box::new(HtmlReporter::new(out)?.with_destination(d)),
            (Format::Html, None) => Box::new(HtmlReporter::new(out)?),
            (Format::Markdown, Some(d)) => {
                Box::new(MarkdownReporter::new(out)?.with_destination(d))
            }
            (Format::Markdown, None) => Box::new(MarkdownReporter::new(out)?),
            (Format::Otlp, Some(d)) => Box::new(OtlpReporter::new(out).with_destination(d)),
            (Format::Otlp, None) => Box::new(OtlpReporter::new(out)),
        })
    }
}

impl ReportRequest {
    /// Every report file asked for: flag, format and path, in the order
    /// the reports are written.
    fn files(&self) -> Vec<(&'static str, Format, &Path)> {
        [
            ("--json", Format::Json, &self.json),
            ("--junit", Format::Junit, &self.junit),
            ("--html", Format::Html, &self.html),
            ("--markdown", Format::Markdown, &self.markdown),
            ("--otlp-out", Format::Otlp, &self.otlp),
        ]
        .into_iter()
        .filter_map(|(flag, format, p)| p.as_deref().map(|p| (flag, format, p)))
        .collect()
    }
}

/// One report being written: its name in messages, the reporter, and the
/// file it goes to (renamed into place only once the report is complete).
struct Slot {
    name: String,
    reporter: Box<dyn Reporter + Send>,
    /// Where its bytes go once complete (a file, a device, stdout).
    file: Option<ReportFile>,
    /// Whether that is a named file, which keeps its previous content
    /// when the report fails.
    to_file: bool,
    /// Where its file is settled since the last secret was learnt.
    settled: Settled,
    /// Where its `finish` began writing, when it was settled then.
    finish_from: Option<u64>,
}

/// How far a report was written under every secret learnt so far: after
/// a secret is learnt, the first point where the reporter holds no text
/// of an earlier event ([`Reporter::settled`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settled {
    /// No secret was learnt since the first event.
    Always,
    /// One was, and the reporter has not settled since.
    Pending,
    /// Settled at this byte, the last secret learnt before it.
    At(u64),
}

/// How a [`Fanout`] tells the person at the terminal that a report failed.
pub type FailureNotice = Box<dyn FnMut(&str) + Send>;

/// Sends every event to every reporter; a reporter that fails (a closed
/// pipe, a full disk) is dropped with one message and the run goes on, so
/// no verdict already reached is lost from the other reports. A report
/// file is put in place only when its report is complete: one that failed
/// leaves its destination as it was.
pub struct Fanout {
    slots: Vec<Slot>,
    failed: bool,
    notice: FailureNotice,
    /// The fragments its own JSON and JUnit reporters write.
    prerender: Prerender,
    /// The secrets every reporter redacts: empty until
    /// [`Fanout::redact_with`] is first called, which wraps every reporter
    /// in it; later calls add to it. [`Fanout::ahead`] redacts with it.
    primary: SharedRedactor,
    /// Whether the reporters are wrapped in [`Self::primary`] yet.
    wrapped: bool,
    /// The secrets the outermost wrapper redacts, when secrets that could
    /// not be searched for together with the primary's got a wrapper of
    /// their own.
    outer: Option<SharedRedactor>,
    /// How many events were sent.
    events: u64,
    /// How many secrets were redacted when the first event after the
    /// run's beginning was written (the beginning holds the command's own
    /// settings, no trace's text): a report file is redacted again at its
    /// end when more were learnt since, as earlier lines may hold them.
    secrets_at_first_event: Option<usize>,
    /// How many secrets were redacted at the last event.
    secrets_seen: usize,
}

impl std::fmt::Debug for Fanout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fanout")
            .field(
                "reports",
                &self.slots.iter().map(|s| &s.name).collect::<Vec<_>>(),
            )
            .field("failed", &self.failed)
            .finish()
    }
}

impl Fanout {
    /// Checks every report path of `request` against `protected` (the
    /// command's inputs and the store) and against the other report
    /// ([`check_outputs`]), creating nothing: a command calls it before it
    /// opens anything it reads, so a refused path changes no input.
    ///
    /// # Errors
    /// [`ReportError`] naming the refused path.
    pub fn check(request: &ReportRequest, protected: &[Protected]) -> Result<(), ReportError> {
        let outputs: Vec<Output> = request
            .files()
            .iter()
            .map(|(flag, _, p)| Output::file(*flag, p))
            .collect();
        check_outputs(&outputs, protected)
    }

    /// The reports `request` asks for: the terminal summary (unless a
    /// report goes to stdout), `json`, `junit`, `html`, `markdown`. Every report path is
    /// checked first against `protected` (the command's inputs and the
    /// store) and against the other report ([`check_outputs`]): nothing is
    /// created when one is refused. `notice` receives one line per report
    /// that fails later (never for a closed pipe).
    ///
    /// # Errors
    /// [`ReportError`] when a path is refused or its temporary file cannot
    /// be created; the message names the path.
    pub fn open(
        request: &ReportRequest,
        protected: &[Protected],
        notice: FailureNotice,
    ) -> Result<Fanout, ReportError> {
        Fanout::check(request, protected)?;
        let files = request.files();
        let mut fan = Fanout {
            slots: Vec::new(),
            failed: false,
            notice,
            prerender: Prerender {
                json: request.json.is_some(),
                junit: request.junit.is_some(),
            },
            primary: SharedRedactor::default(),
            wrapped: false,
            outer: None,
            events: 0,
            secrets_at_first_event: None,
            secrets_seen: 0,
        };
        if let Some(options) = &request.terminal {
            if !request.to_stdout() {
                fan.slots.push(Slot {
                    name: "terminal".into(),
                    reporter: Box::new(TerminalReporter::new(
                        BufWriter::new(std::io::stdout()),
                        *options,
                    )),
                    file: None,
                    to_file: false,
                    settled: Settled::Always,
                    finish_from: None,
                });
            }
        }
        for (_, format, p) in files {
            let (reporter, file) = if is_stdout(p) {
                // Spooled, to be redacted again as a file is before it is
                // written out.
                let (file, w) = ReportFile::stdout()?;
                (format.reporter(Box::new(w), None)?, file)
            } else {
                let (file, w) = ReportFile::create(p)?;
                let shown = p.display().to_string();
                (format.reporter(Box::new(w), Some(shown))?, file)
            };
            let to_file = !file.is_spooled();
            let file = Some(file);
            fan.slots.push(Slot {
                name: format.name().into(),
                reporter,
                file,
                to_file,
                settled: Settled::Always,
                finish_from: None,
            });
        }
        Ok(fan)
    }

    /// A fanout over reporters built elsewhere (tests, other front ends),
    /// none of them writing a file.
    pub fn over(
        reporters: Vec<(String, Box<dyn Reporter + Send>)>,
        notice: FailureNotice,
    ) -> Fanout {
        Fanout {
            slots: reporters
                .into_iter()
                .map(|(name, reporter)| Slot {
                    name,
                    reporter,
                    file: None,
                    to_file: false,
                    settled: Settled::Always,
                    finish_from: None,
                })
                .collect(),
            failed: false,
            notice,
            prerender: Prerender::default(),
            primary: SharedRedactor::default(),
            wrapped: false,
            outer: None,
            events: 0,
            secrets_at_first_event: None,
            secrets_seen: 0,
        }
    }

    /// How many secrets every reporter redacts now.
    fn secrets(&self) -> usize {
        self.primary.len() + self.outer.as_ref().map_or(0, SharedRedactor::len)
    }

    /// Makes every reporter redact `redactor`'s secrets (a run's keys) from
    /// each later event before it writes anything (SPEC §4), besides the
    /// secrets of earlier calls.
    pub fn redact_with(&mut self, redactor: &Redactor) {
        if redactor.is_empty() {
            return;
        }
        // Secrets learnt as the run goes on (a key in the next trace) join
        // the ones every reporter already redacts: one wrapper each, not
        // one per call. Secrets that cannot be searched for together get
        // a wrapper of their own.
        let latest = self.outer.as_ref().unwrap_or(&self.primary);
        if latest.add(redactor).is_ok() {
            if !self.wrapped {
                self.wrapped = true;
                let shared = self.primary.clone();
                self.wrap(&shared);
            }
            return;
        }
        let shared = SharedRedactor::new(redactor.clone());
        self.wrap(&shared);
        self.outer = Some(shared);
    }

    /// Wraps every reporter in a [`Redacting`] over `shared`.
    fn wrap(&mut self, shared: &SharedRedactor) {
        for slot in &mut self.slots {
            let inner = std::mem::replace(
                &mut slot.reporter,
                Box::new(Vec::<Box<dyn Reporter + Send>>::new()),
            );
            slot.reporter = Box::new(Redacting::shared(inner, shared.clone()));
        }
    }

    /// What a pipeline may do ahead, on the threads that grade
    /// ([`Ahead::render`]): render [`Fanout::prerender`]'s fragments, of
    /// each result redacted as the reports redact it at that moment.
    pub fn ahead(&self) -> Ahead {
        Ahead::new(self.prerender, Some(self.primary.clone()))
    }

    /// Whether some report shows transcripts (the HTML page).
    pub fn wants_transcripts(&self) -> bool {
        self.slots.iter().any(|s| s.reporter.wants_transcripts())
    }

    /// Sends the trace of the next result to the reports that show
    /// transcripts (each redacts it as it redacts every event).
    pub fn transcript(&mut self, t: &pactum_core::trace::Trace) {
        if self.wants_transcripts() {
            self.each(|r| {
                if r.wants_transcripts() {
                    r.transcript(t)
                } else {
                    Ok(())
                }
            });
        }
    }

    /// Sends how the next result's authored test was read to every report.
    pub fn reading(&mut self, r: &crate::Reading) {
        self.each(|x| x.reading(r));
    }

    /// Sends one event to every reporter still working.
    pub fn each(&mut self, mut f: impl FnMut(&mut dyn Reporter) -> Result<(), ReportError>) {
        self.events += 1;
        let secrets = self.secrets();
        if self.events == 2 {
            self.secrets_at_first_event = Some(secrets);
        } else if self.events > 2 && secrets > self.secrets_seen {
            // Secrets are learnt between events only: what each report
            // wrote until it settles again may hold the new ones.
            for slot in &mut self.slots {
                slot.settled = Settled::Pending;
            }
        }
        self.secrets_seen = secrets;
        let mut kept = Vec::with_capacity(self.slots.len());
        for mut slot in std::mem::take(&mut self.slots) {
            match f(slot.reporter.as_mut()) {
                Ok(()) => {
                    if slot.settled == Settled::Pending {
                        if let Some(at) = slot.reporter.settled() {
                            slot.settled = Settled::At(at);
                        }
                    }
                    kept.push(slot);
                }
                Err(e) => self.report_failure(&slot.name, slot.to_file, &e),
            }
        }
        self.slots = kept;
    }

    /// The fragments worth rendering ahead for these reports
    /// ([`crate::Rendered::of`]): those of the JSON and JUnit reports being
    /// written.
    pub fn prerender(&self) -> Prerender {
        self.prerender
    }

    /// Ends every report, and puts each complete report file in place.
    /// A file is first redacted again, whole, when secrets were learnt
    /// after its first event (a key found in a later trace): what is kept
    /// on disk holds none of them. What was already printed on the
    /// terminal cannot be taken back.
    ///
    /// Only what may hold a late secret is redacted again. A reporter that
    /// settles ([`Reporter::settled`]: the JSON report) wrote everything
    /// from its settling after the last secret was learnt up to its
    /// `finish` under every secret: the lines in between are kept as they
    /// are. Every line of another report is redacted again.
    pub fn finish(&mut self, end: &RunEnd) {
        let learnt_late = self
            .secrets_at_first_event
            .is_some_and(|n| self.secrets() > n);
        // What `finish` writes (held input errors, the agreement…) is
        // redacted again whole.
        for slot in &mut self.slots {
            slot.finish_from = slot.reporter.settled();
        }
        self.each(|r| r.finish(end));
        let redactors: Vec<Redactor> = if learnt_late {
            std::iter::once(&self.primary)
                .chain(self.outer.as_ref())
                .map(SharedRedactor::current)
                .collect()
        } else {
            Vec::new()
        };
        for slot in std::mem::take(&mut self.slots) {
            if let Some(mut file) = slot.file {
                let keep = match (slot.settled, slot.finish_from) {
                    (Settled::At(from), Some(to)) if from <= to => Some(from..to),
                    _ => None,
                };
                let done = if learnt_late {
                    file.redact_again(&redactors, keep)
                } else {
                    Ok(())
                };
                if let Err(e) = done.and_then(|()| file.commit()) {
                    self.report_failure(&slot.name, slot.to_file, &e);
                }
            }
        }
    }

    /// Whether a requested report could not be written in full (the
    /// command is then partial).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Says why a report failed (a closed pipe quietly ends it).
    fn report_failure(&mut self, name: &str, to_file: bool, e: &ReportError) {
        if is_broken_pipe(e) {
            return;
        }
        let mut msg = format!("error: {name} report: {}", with_causes(e));
        msg.push_str(if to_file {
            "; it was not written (its file keeps its previous content)"
        } else {
            "; it is incomplete"
        });
        (self.notice)(&msg);
        self.failed = true;
    }
}

fn is_stdout(p: &Path) -> bool {
    p.as_os_str() == STDOUT
}

fn is_broken_pipe(e: &ReportError) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::BrokenPipe;
        }
        source = s.source();
    }
    false
}

/// An error and its causes, on one line (a cause already quoted in the
/// message is not repeated).
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !msg.contains(&text) {
            msg.push_str(&format!(": {text}"));
        }
        source = s.source();
    }
    msg
}
