//! Every report a command asked for, fed the same events: [`Fanout`].

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use pactum_core::secret::Redactor;

use crate::{
    check_outputs, JsonReporter, JunitReporter, Output, Protected, Redacting, ReportError,
    ReportFile, Reporter, RunEnd, SharedRedactor, TerminalOptions, TerminalReporter,
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
    /// The terminal summary on stdout, unless `None` (`--quiet`) or a
    /// report goes to stdout (which then replaces it).
    pub terminal: Option<TerminalOptions>,
}

impl ReportRequest {
    /// Whether a report goes to standard output (`--json -` or
    /// `--junit -`), which then replaces the terminal summary.
    pub fn to_stdout(&self) -> bool {
        [&self.json, &self.junit]
            .into_iter()
            .any(|p| p.as_deref().is_some_and(|p| p.as_os_str() == STDOUT))
    }
}

/// One report being written: its name in messages, the reporter, and the
/// file it goes to (renamed into place only once the report is complete).
struct Slot {
    name: String,
    reporter: Box<dyn Reporter + Send>,
    file: Option<ReportFile>,
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
    /// The secrets every reporter redacts, once [`Fanout::redact_with`]
    /// was called: later calls add to it rather than wrap again.
    redactor: Option<SharedRedactor>,
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
    /// The reports `request` asks for: the terminal summary (unless a
    /// report goes to stdout), `json`, `junit`. Every report path is
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
        let mut outputs = Vec::new();
        if let Some(p) = &request.json {
            outputs.push(Output::file("--json", p));
        }
        if let Some(p) = &request.junit {
            outputs.push(Output::file("--junit", p));
        }
        check_outputs(&outputs, protected)?;
        let mut fan = Fanout {
            slots: Vec::new(),
            failed: false,
            notice,
            redactor: None,
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
                });
            }
        }
        if let Some(p) = &request.json {
            let (reporter, file): (Box<dyn Reporter + Send>, _) = if is_stdout(p) {
                (
                    Box::new(JsonReporter::new(BufWriter::new(std::io::stdout()))),
                    None,
                )
            } else {
                let (file, w) = ReportFile::create(p)?;
                (
                    Box::new(
                        JsonReporter::new(BufWriter::new(w))
                            .with_destination(p.display().to_string()),
                    ),
                    Some(file),
                )
            };
            fan.slots.push(Slot {
                name: "JSON".into(),
                reporter,
                file,
            });
        }
        if let Some(p) = &request.junit {
            let (reporter, file): (Box<dyn Reporter + Send>, _) = if is_stdout(p) {
                (
                    Box::new(JunitReporter::new(BufWriter::new(std::io::stdout()))),
                    None,
                )
            } else {
                let (file, w) = ReportFile::create(p)?;
                (
                    Box::new(
                        JunitReporter::new(BufWriter::new(w))
                            .with_destination(p.display().to_string()),
                    ),
                    Some(file),
                )
            };
            fan.slots.push(Slot {
                name: "JUnit".into(),
                reporter,
                file,
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
                })
                .collect(),
            failed: false,
            notice,
            redactor: None,
        }
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
        if let Some(shared) = &self.redactor {
            if shared.add(redactor).is_ok() {
                return;
            }
        }
        let shared = SharedRedactor::new(redactor.clone());
        for slot in &mut self.slots {
            let inner = std::mem::replace(
                &mut slot.reporter,
                Box::new(Vec::<Box<dyn Reporter + Send>>::new()),
            );
            slot.reporter = Box::new(Redacting::shared(inner, shared.clone()));
        }
        self.redactor = Some(shared);
    }

    /// Sends one event to every reporter still working.
    pub fn each(&mut self, mut f: impl FnMut(&mut dyn Reporter) -> Result<(), ReportError>) {
        let mut kept = Vec::with_capacity(self.slots.len());
        for mut slot in std::mem::take(&mut self.slots) {
            match f(slot.reporter.as_mut()) {
                Ok(()) => kept.push(slot),
                Err(e) => self.report_failure(&slot.name, slot.file.is_some(), &e),
            }
        }
        self.slots = kept;
    }

    /// Ends every report, and puts each complete report file in place.
    pub fn finish(&mut self, end: &RunEnd) {
        self.each(|r| r.finish(end));
        for slot in std::mem::take(&mut self.slots) {
            if let Some(file) = slot.file {
                if let Err(e) = file.commit() {
                    self.report_failure(&slot.name, true, &e);
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
