//! The terminal summary (layout in `docs/reports.md`).
//!
//! Lines are grouped by status, failures first, so they can only be printed
//! once every result is in. To stay bounded whatever the input size, the
//! reporter keeps at most [`TerminalOptions::max_per_group`] entries per
//! status group (plus counts); the JSON report has the rest.

use std::io::{BufWriter, Write};

use anstyle::{AnsiColor, Style};
use pactum_core::text::one_line;
use pactum_core::{TestStatus, TraceResult};

use crate::agreement::AgreementTracker;
use crate::render::{self, BreakdownLine, Mark};
use crate::totals::plural;
use crate::{InputError, MissingTrial, ReportError, Reporter, RunEnd, RunInfo, Totals};

/// Contract ids named in the header before "and N more".
const HEADER_CONTRACTS: usize = 10;

/// How the terminal summary looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalOptions {
    /// Colour status labels and clause marks with ANSI SGR sequences. Only
    /// pactum's own styling is coloured: untrusted text never carries escapes.
    pub color: bool,
    /// List every passing trace too (up to `max_per_group`). Without it,
    /// passes are counted, and only those whose summary says something
    /// beyond "held" are listed: a clause left undetermined below the floor,
    /// an untested conditional path, or a match discounted as an echo.
    pub verbose: bool,
    /// Entries kept and printed per status group (FAIL, ERR, WARN, PASS),
    /// and input errors, warnings and disagreements printed; the rest are
    /// counted ("… and N more (see the JSON report)"). Default 50.
    pub max_per_group: usize,
}

impl Default for TerminalOptions {
    fn default() -> Self {
        TerminalOptions {
            color: false,
            verbose: false,
            max_per_group: 50,
        }
    }
}

/// One retained trace line and, for a failure, its clause breakdown.
#[derive(Debug)]
struct Entry {
    line: String,
    breakdown: Vec<BreakdownLine>,
}

#[derive(Debug, Default)]
struct Group {
    entries: Vec<Entry>,
    more: u64,
}

/// Writes the terminal summary to `W` (normally standard output).
///
/// Memory is bounded: at most `max_per_group` entries per status group,
/// each of bounded size (ids, summaries and excerpts are cut, a breakdown
/// lists at most 20 clauses), the same bound for input errors,
/// plus the disagreements an [`AgreementTracker`] keeps.
#[derive(Debug)]
pub struct TerminalReporter<W: Write> {
    out: BufWriter<W>,
    options: TerminalOptions,
    destination: String,
    totals: Totals,
    /// Indexed like `TestStatus::ALL`: FAIL, ERR, WARN, PASS.
    groups: [Group; 4],
    unlisted_passes: u64,
    input_errors: Vec<String>,
    input_errors_more: u64,
    missing: Vec<String>,
    agreement: Option<AgreementTracker>,
    finished: bool,
}

impl<W: Write> TerminalReporter<W> {
    /// A reporter writing to `out`; errors name it `standard output` (see
    /// [`TerminalReporter::with_destination`]).
    pub fn new(out: W, options: TerminalOptions) -> Self {
        TerminalReporter {
            out: BufWriter::new(out),
            options,
            destination: "standard output".to_string(),
            totals: Totals::default(),
            groups: Default::default(),
            unlisted_passes: 0,
            input_errors: Vec::new(),
            input_errors_more: 0,
            missing: Vec::new(),
            agreement: None,
            finished: false,
        }
    }

    /// Names the destination in error messages (a path, or a stream name).
    pub fn with_destination(mut self, destination: impl Into<String>) -> Self {
        self.destination = destination.into();
        self
    }

    /// The counts so far.
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// Trace entries currently kept for printing (at most
    /// `4 × max_per_group`, whatever the number of results).
    pub fn retained_entries(&self) -> usize {
        self.groups.iter().map(|g| g.entries.len()).sum()
    }

    /// Lines currently kept for printing: trace lines, breakdown lines and
    /// input error lines. At most `max_per_group × (4 + 41 + 1)`: one line
    /// per entry, a breakdown of at most 41 lines per failure, and one line
    /// per input error.
    pub fn retained_lines(&self) -> usize {
        self.groups
            .iter()
            .flat_map(|g| &g.entries)
            .map(|e| 1 + e.breakdown.len())
            .sum::<usize>()
            + self.input_errors.len()
            + self.missing.len()
    }

    fn paint(&self, style: Style, text: &str) -> String {
        if self.options.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }

    fn label(&self, status: TestStatus) -> String {
        let style = match status {
            TestStatus::Fail => Style::new().fg_color(Some(AnsiColor::Red.into())).bold(),
            TestStatus::Error => Style::new()
                .fg_color(Some(AnsiColor::Magenta.into()))
                .bold(),
            TestStatus::Undetermined => {
                Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold()
            }
            TestStatus::Pass => Style::new().fg_color(Some(AnsiColor::Green.into())),
        };
        // Pad outside the escapes so columns line up with and without colour.
        let pad = " ".repeat(4 - status.label().len());
        format!("{}{pad}", self.paint(style, status.label()))
    }

    fn mark(&self, mark: Mark) -> String {
        let style = match mark {
            Mark::Held => Style::new().fg_color(Some(AnsiColor::Green.into())),
            Mark::Broken => Style::new().fg_color(Some(AnsiColor::Red.into())).bold(),
            Mark::Partial | Mark::Unknown => Style::new().fg_color(Some(AnsiColor::Yellow.into())),
            Mark::Untested => Style::new().dimmed(),
        };
        self.paint(style, &mark.symbol().to_string())
    }

    fn emit(&mut self, text: &str) -> Result<(), ReportError> {
        self.out
            .write_all(text.as_bytes())
            .map_err(|e| ReportError::write(&self.destination, e))
    }

    fn check_open(&self, call: &'static str) -> Result<(), ReportError> {
        if self.finished {
            return Err(ReportError::Protocol {
                call,
                problem: "after finish",
            });
        }
        Ok(())
    }

    fn render_groups(&self) -> String {
        let mut s = String::new();
        for (status, group) in TestStatus::ALL.iter().zip(&self.groups) {
            let unlisted = if *status == TestStatus::Pass {
                self.unlisted_passes
            } else {
                0
            };
            if group.entries.is_empty() && group.more == 0 && unlisted == 0 {
                continue;
            }
            let label = self.label(*status);
            for e in &group.entries {
                s.push_str(&format!("{label}  {}\n", e.line));
                for b in &e.breakdown {
                    match b.mark {
                        Some(m) => s.push_str(&format!("      {} {}\n", self.mark(m), b.text)),
                        None => s.push_str(&format!("      {}\n", b.text)),
                    }
                }
            }
            if group.more > 0 {
                s.push_str(&format!(
                    "{label}  … and {} more (see the JSON report)\n",
                    group.more
                ));
            }
            if unlisted > 0 {
                let more = if group.entries.is_empty() {
                    ""
                } else {
                    "more "
                };
                s.push_str(&format!(
                    "{label}  {unlisted} {more}{} passed with every clause graded (not listed; -v lists them)\n",
                    plural(unlisted, "trace", "traces"),
                ));
            }
            s.push('\n');
        }
        if self.totals.traces() == 0 {
            s.push_str("no trace was graded\n\n");
        }
        s
    }

    fn render_input_errors(&self) -> String {
        let mut s = String::new();
        if self.totals.input_errors == 0 {
            return s;
        }
        s.push_str(&format!("input errors ({}):\n", self.totals.input_errors));
        for line in &self.input_errors {
            s.push_str(&format!("  {line}\n"));
        }
        if self.input_errors_more > 0 {
            s.push_str(&format!(
                "  … and {} more (see the JSON report)\n",
                self.input_errors_more
            ));
        }
        s.push('\n');
        s
    }

    fn render_missing(&self) -> String {
        let n = self.totals.missing_trials;
        if n == 0 {
            return String::new();
        }
        let planned = self.totals.traces() + n;
        let mut s = format!(
            "missing trials ({n} of {planned} planned, never stored: the run stopped before them):\n  {}",
            self.missing.join(", ")
        );
        let more = n - self.missing.len() as u64;
        if more > 0 {
            s.push_str(&format!(" … and {more} more (see the JSON report)"));
        }
        s.push_str("\n\n");
        s
    }

    fn render_warnings(&self, end: &RunEnd) -> String {
        let mut s = String::new();
        if end.warnings.is_empty() {
            return s;
        }
        s.push_str(&format!("warnings ({}):\n", end.warnings.len()));
        for w in end.warnings.iter().take(self.options.max_per_group) {
            s.push_str(&format!(
                "  {}: {}\n",
                one_line(&w.code, 60),
                one_line(&w.message, render::SUMMARY_CHARS)
            ));
        }
        if end.warnings.len() > self.options.max_per_group {
            s.push_str(&format!(
                "  … and {} more (see the JSON report)\n",
                end.warnings.len() - self.options.max_per_group
            ));
        }
        s.push('\n');
        s
    }

    fn render_agreement(&self, a: &AgreementTracker) -> String {
        let mut s = String::new();
        let e = a.expectations();
        s.push_str(&format!(
            "\nagreement with expected statuses ({} from {}): {} labelled, {} unlabelled\n",
            one_line(&e.pointer, 120),
            one_line(&e.path, 200),
            a.labelled(),
            a.unlabelled()
        ));
        let corner = "expected \\ actual";
        let first = TestStatus::ALL
            .iter()
            .map(|t| t.as_str().len())
            .chain([corner.len()])
            .max()
            .unwrap_or(corner.len());
        let widths: Vec<usize> = TestStatus::ALL
            .iter()
            .map(|actual| {
                let digits = TestStatus::ALL
                    .iter()
                    .map(|exp| a.confusion().get(*exp, *actual).to_string().len())
                    .max()
                    .unwrap_or(1);
                digits.max(actual.as_str().len())
            })
            .collect();
        s.push_str(&format!("  {corner:<first$}"));
        for (actual, w) in TestStatus::ALL.iter().zip(&widths) {
            s.push_str(&format!("  {:>w$}", actual.as_str()));
        }
        s.push('\n');
        for expected in TestStatus::ALL {
            s.push_str(&format!("  {:<first$}", expected.as_str()));
            for (actual, w) in TestStatus::ALL.iter().zip(&widths) {
                s.push_str(&format!("  {:>w$}", a.confusion().get(expected, *actual)));
            }
            s.push('\n');
        }
        let accuracy = match a.accuracy() {
            Some(acc) => format!(
                "{:.1}% ({} of {} agree)",
                acc * 100.0,
                a.confusion().agreeing(),
                a.labelled()
            ),
            None => "n/a (no labelled trace)".to_string(),
        };
        let kappa = match a.kappa() {
            Some(k) => format!("{k:.3}"),
            None if a.labelled() == 0 => "n/a (no labelled trace)".to_string(),
            None => {
                "undefined (labels and statuses are one and the same single status)".to_string()
            }
        };
        s.push_str(&format!("  accuracy {accuracy}, Cohen's kappa {kappa}\n"));
        let ds = a.disagreements();
        if ds.is_empty() {
            s.push_str("disagreements: none\n");
            return s;
        }
        s.push_str(&format!("disagreements ({}):\n", ds.len()));
        for d in ds.iter().take(self.options.max_per_group) {
            s.push_str(&format!(
                "  {}  expected {}, got {}: {}\n",
                render::id(&d.trace_id),
                d.expected.as_str(),
                d.actual.as_str(),
                one_line(&d.decided_by, render::SUMMARY_CHARS)
            ));
        }
        if ds.len() > self.options.max_per_group {
            s.push_str(&format!(
                "  … and {} more (see the JSON report)\n",
                ds.len() - self.options.max_per_group
            ));
        }
        s
    }
}

impl<W: Write> Reporter for TerminalReporter<W> {
    /// Prints the header line: command, contracts, severity floor.
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        self.check_open("begin")?;
        self.agreement = info
            .expectations
            .as_ref()
            .map(|e| AgreementTracker::new(e, &info.policy));
        let n = info.contracts.len() as u64;
        let mut ids: Vec<String> = info
            .contracts
            .iter()
            .take(HEADER_CONTRACTS)
            .map(|c| render::id(&c.id))
            .collect();
        if info.contracts.len() > HEADER_CONTRACTS {
            ids.push(format!(
                "and {} more",
                info.contracts.len() - HEADER_CONTRACTS
            ));
        }
        let mut contracts = if n == 0 && info.authored_tests > 0 {
            String::new()
        } else if n == 0 {
            "no contract".to_string()
        } else {
            format!(
                "{n} {} ({})",
                plural(n, "contract", "contracts"),
                ids.join(", ")
            )
        };
        if info.authored_tests > 0 {
            let a = info.authored_tests;
            if !contracts.is_empty() {
                contracts.push_str(", ");
            }
            contracts.push_str(&format!(
                "{a} authored {} (contracts interpreted per test)",
                plural(a, "test", "tests")
            ));
        }
        let header = format!(
            "pactum {} {}: {contracts}, severity floor {}\n\n",
            one_line(&info.pactum_version, 40),
            one_line(&info.command, 40),
            info.policy.severity_floor.as_str()
        );
        self.emit(&header)?;
        self.out
            .flush()
            .map_err(|e| ReportError::write(&self.destination, e))
    }

    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError> {
        self.check_open("result")?;
        self.totals.add(r.status);
        if let Some(a) = &mut self.agreement {
            a.record(r, expected);
        }
        if r.status == TestStatus::Pass && !self.options.verbose && !render::has_notes(r) {
            self.unlisted_passes += 1;
            return Ok(());
        }
        let index = TestStatus::ALL
            .iter()
            .position(|s| *s == r.status)
            .unwrap_or(0);
        let cap = self.options.max_per_group;
        let group = &mut self.groups[index];
        if group.entries.len() >= cap {
            group.more += 1;
            return Ok(());
        }
        // A result graded against no contract (a stale or unusable test)
        // has no tag to show.
        let line = if r.contracts.is_empty() {
            format!("{}  {}", render::id(&r.trace_id), render::summary(r))
        } else {
            format!(
                "{}  [{}]  {}",
                render::id(&r.trace_id),
                render::contract_ids(r),
                render::summary(r)
            )
        };
        let breakdown = if r.status == TestStatus::Fail {
            render::breakdown(r)
        } else {
            Vec::new()
        };
        group.entries.push(Entry { line, breakdown });
        Ok(())
    }

    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        self.check_open("input_error")?;
        self.totals.add_input_error();
        if self.input_errors.len() >= self.options.max_per_group {
            self.input_errors_more += 1;
            return Ok(());
        }
        let field = e
            .field
            .as_deref()
            .map(|f| format!("{}: ", one_line(f, 100)))
            .unwrap_or_default();
        // Line 0 is a file-level error (the file could not be read at all).
        let at = if e.line == 0 {
            one_line(&e.file, 200)
        } else {
            format!("{}:{}", one_line(&e.file, 200), e.line)
        };
        self.input_errors
            .push(format!("{at}: {field}{}", one_line(&e.message, 300)));
        Ok(())
    }

    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        self.check_open("missing_trial")?;
        self.totals.add_missing_trial();
        if self.missing.len() < self.options.max_per_group {
            self.missing.push(render::id(&m.trace_id));
        }
        Ok(())
    }

    /// Prints the groups, input errors, missing trials, warnings, totals and the agreement
    /// table, then flushes.
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        self.check_open("finish")?;
        self.finished = true;
        let mut s = self.render_groups();
        s.push_str(&self.render_input_errors());
        s.push_str(&self.render_missing());
        s.push_str(&self.render_warnings(end));
        s.push_str(&crate::openprose::render_runs(
            &end.openprose,
            self.options.max_per_group,
        ));
        s.push_str(&self.totals.summary_line());
        s.push('\n');
        if let Some(a) = &self.agreement {
            s.push_str(&self.render_agreement(a));
        }
        self.emit(&s)?;
        self.out
            .flush()
            .map_err(|e| ReportError::write(&self.destination, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ContractInfo, ExpectationsInfo, Warning};
    use pactum_core::Policy;

    fn info(contracts: usize, expectations: bool) -> RunInfo {
        RunInfo {
            command: "grade".into(),
            pactum_version: "9.9.9".into(),
            policy: Policy::default(),
            contracts: (0..contracts)
                .map(|i| ContractInfo {
                    id: format!("c{i}"),
                    path: format!("c{i}.yaml"),
                    digest: String::new(),
                })
                .collect(),
            authored_tests: 0,
            expectations: expectations.then(|| ExpectationsInfo {
                path: "e.yaml".into(),
                pointer: "/label".into(),
            }),
            run: None,
        }
    }

    fn run(info: &RunInfo, options: TerminalOptions, errors: u64, warnings: usize) -> String {
        let mut out = Vec::new();
        let mut t = TerminalReporter::new(&mut out, options);
        t.begin(info).expect("begin");
        for i in 0..errors {
            t.input_error(&InputError {
                file: "f.jsonl".into(),
                line: i + 1,
                field: None,
                message: "bad".into(),
            })
            .expect("input error");
        }
        let end = RunEnd {
            openprose: vec![],
            inputs: vec![],
            warnings: (0..warnings)
                .map(|i| Warning {
                    code: format!("w{i}"),
                    message: "m".into(),
                })
                .collect(),
        };
        t.finish(&end).expect("finish");
        assert!(matches!(
            t.finish(&end),
            Err(ReportError::Protocol {
                problem: "after finish",
                ..
            })
        ));
        drop(t);
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn header_names_contracts_within_bounds() {
        let none = run(&info(0, false), TerminalOptions::default(), 0, 0);
        assert!(
            none.starts_with("pactum 9.9.9 grade: no contract, severity floor medium\n"),
            "{none}"
        );
        let one = run(&info(1, false), TerminalOptions::default(), 0, 0);
        assert!(
            one.starts_with("pactum 9.9.9 grade: 1 contract (c0), severity floor medium\n"),
            "{one}"
        );
        let many = run(&info(12, false), TerminalOptions::default(), 0, 0);
        assert!(
            many.contains("12 contracts (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, and 2 more)"),
            "{many}"
        );
        assert!(many.contains("no trace was graded"), "{many}");
    }

    #[test]
    fn input_errors_and_warnings_are_capped() {
        let options = TerminalOptions {
            max_per_group: 2,
            ..TerminalOptions::default()
        };
        let out = run(&info(1, false), options, 5, 4);
        assert!(out.contains("input errors (5):\n  f.jsonl:1: bad\n  f.jsonl:2: bad\n  … and 3 more (see the JSON report)\n"), "{out}");
        assert!(
            out.contains("warnings (4):\n  w0: m\n  w1: m\n  … and 2 more (see the JSON report)\n"),
            "{out}"
        );
        assert!(out.contains("0 traces: 0 fail, 0 error, 0 undetermined, 0 pass; 5 input errors — nothing was graded"), "{out}");
    }

    #[test]
    fn an_empty_agreement_table_says_what_is_missing() {
        let out = run(&info(1, true), TerminalOptions::default(), 0, 0);
        assert!(out.contains("0 labelled, 0 unlabelled"), "{out}");
        assert!(
            out.contains("accuracy n/a (no labelled trace), Cohen's kappa n/a (no labelled trace)"),
            "{out}"
        );
        assert!(out.contains("disagreements: none"), "{out}");
    }
}
