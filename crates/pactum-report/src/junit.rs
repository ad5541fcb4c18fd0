//! JUnit XML (mapping in `docs/reports.md`).
//!
//! `<testsuite>` carries its counts as attributes, before its test cases, so
//! the document can only be written once the run is over. Test cases are
//! spooled to an anonymous temporary file as they arrive, with the byte
//! ranges of each input file's cases; `finish` writes each suite's counts
//! and copies its ranges back. Memory holds the suites and one range per
//! run of consecutive cases from the same file, never the cases.
//!
//! An undetermined result is a `<failure type="undetermined">`: CI must
//! never show it green (SPEC §1.2: evidence nobody could see is not a pass).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

use pactum_core::text::{one_line, strip_terminal_escapes};
use pactum_core::{TestStatus, TraceResult};

use crate::render;
use crate::{InputError, MissingTrial, Rendered, ReportError, Reporter, RunEnd, RunInfo};

/// Longest attribute value (test name, class name, message), in characters.
const ATTR_CHARS: usize = 500;

/// The suite of results that name no input file, when the run has no
/// name ([`RunInfo::run`]).
const NO_INPUT_SUITE: &str = "(no input file)";

/// The suite that carries the run-level warnings.
const WARNINGS_SUITE: &str = "(run warnings)";

/// How much of one warning the JUnit report keeps.
const WARNING_CHARS: usize = 2000;

#[derive(Debug)]
struct Suite {
    name: String,
    tests: u64,
    failures: u64,
    errors: u64,
}

/// A run of consecutive spooled test cases of one suite: bytes `start..end`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    suite: usize,
    start: u64,
    end: u64,
}

/// Writes JUnit XML to `W`, spooling test cases to a temporary file.
#[derive(Debug)]
pub struct JunitReporter<W: Write> {
    out: BufWriter<W>,
    destination: String,
    name: String,
    /// The `<testsuite>` of results with no input file.
    run_suite: String,
    spool: Option<BufWriter<File>>,
    spool_len: u64,
    suites: Vec<Suite>,
    suite_index: HashMap<String, usize>,
    segments: Vec<Segment>,
    case: String,
    finished: bool,
}

/// Keeps only the characters XML 1.0 allows (§2.2 `Char`): terminal escape
/// sequences and C0/C1 controls other than tab and newline are already gone
/// after `strip_terminal_escapes`; this also drops U+FFFE and U+FFFF.
fn xml_chars(s: &str) -> String {
    s.chars()
        .filter(|c| {
            matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
        })
        .collect()
}

/// An attribute value: one line, bounded, legal, escaped (quotes too).
fn attr(s: &str) -> String {
    quick_xml::escape::escape(xml_chars(&one_line(s, ATTR_CHARS))).into_owned()
}

/// Element text: escapes stripped, legal, escaped; newlines kept.
fn text(s: &str) -> String {
    quick_xml::escape::partial_escape(xml_chars(&strip_terminal_escapes(s))).into_owned()
}

fn breakdown_text(r: &TraceResult) -> String {
    render::breakdown(r)
        .iter()
        .map(|l| l.plain())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `<testcase>` element of one trace result, appended to `s`.
pub(crate) fn testcase(r: &TraceResult, s: &mut String) {
    let classname = if r.contracts.is_empty() {
        "(no contract)".to_string()
    } else {
        render::contract_ids(r)
    };
    s.push_str(&format!(
        "    <testcase name=\"{}\" classname=\"{}\"",
        attr(&r.trace_id),
        attr(&classname)
    ));
    let summary = attr(&r.summary);
    match r.status {
        TestStatus::Pass => {
            if render::has_notes(r) {
                // A pass that left clauses undetermined below the floor, or a
                // path untested, says so.
                s.push_str(&format!(
                    ">\n      <system-out>{}</system-out>\n    </testcase>\n",
                    text(&one_line(&r.summary, render::SUMMARY_CHARS))
                ));
            } else {
                s.push_str("/>\n");
            }
        }
        TestStatus::Fail | TestStatus::Undetermined => {
            let kind = if r.status == TestStatus::Fail {
                "fail"
            } else {
                "undetermined"
            };
            s.push_str(&format!(
                ">\n      <failure type=\"{kind}\" message=\"{summary}\">{}</failure>\n    </testcase>\n",
                text(&breakdown_text(r))
            ));
        }
        TestStatus::Error => {
            let message = attr(r.error.as_deref().unwrap_or(&r.summary));
            s.push_str(&format!(
                ">\n      <error type=\"error\" message=\"{message}\">{}</error>\n    </testcase>\n",
                text(&one_line(&r.summary, render::SUMMARY_CHARS))
            ));
        }
    }
}

fn input_error_case(e: &InputError, s: &mut String) {
    let message = match &e.field {
        Some(f) => format!("{f}: {}", e.message),
        None => e.message.clone(),
    };
    s.push_str(&format!(
        "    <testcase name=\"{}\" classname=\"input-error\">\n      <error type=\"input-error\" message=\"{}\"/>\n    </testcase>\n",
        attr(&if e.line == 0 {
            e.file.clone()
        } else {
            format!("{}:{}", e.file, e.line)
        }),
        attr(&message)
    ));
}

/// The `<testcase>` of a trial the run planned but never stored: an error,
/// so the counts add up to every planned trial.
fn missing_trial_case(m: &MissingTrial, s: &mut String) {
    s.push_str(&format!(
        "    <testcase name=\"{}\" classname=\"missing-trial\">\n      <error type=\"missing-trial\" message=\"{}\"/>\n    </testcase>\n",
        attr(&m.trace_id),
        attr(&format!(
            "trial {} of test {} was never stored: the run stopped before it finished",
            m.trial_index + 1,
            m.test_id
        ))
    ));
}

impl<W: Write> JunitReporter<W> {
    /// A reporter writing to `out` (buffered internally); errors name it
    /// `the junit report` (see [`JunitReporter::with_destination`]). The
    /// spool file is created on the first test case, in the system's
    /// temporary directory, and deleted when the reporter is dropped.
    pub fn new(out: W) -> Self {
        JunitReporter {
            out: BufWriter::new(out),
            destination: "the junit report".to_string(),
            name: "pactum".to_string(),
            run_suite: NO_INPUT_SUITE.to_string(),
            spool: None,
            spool_len: 0,
            suites: Vec::new(),
            suite_index: HashMap::new(),
            segments: Vec::new(),
            case: String::with_capacity(4096),
            finished: false,
        }
    }

    /// Names the destination (normally the report's path) in error messages.
    pub fn with_destination(mut self, destination: impl Into<String>) -> Self {
        self.destination = destination.into();
        self
    }

    fn suite(&mut self, name: &str) -> usize {
        if let Some(i) = self.suite_index.get(name) {
            return *i;
        }
        let i = self.suites.len();
        self.suites.push(Suite {
            name: name.to_string(),
            tests: 0,
            failures: 0,
            errors: 0,
        });
        self.suite_index.insert(name.to_string(), i);
        i
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

    /// Spools the test case of `r`: `rendered` when given (the text
    /// [`testcase`] writes), else rendered here.
    fn write_case(&mut self, r: &TraceResult, rendered: Option<&str>) -> Result<(), ReportError> {
        self.check_open("result")?;
        let suite = match &r.source {
            Some(s) => self.suite(&s.file),
            None => {
                let name = self.run_suite.clone();
                self.suite(&name)
            }
        };
        let tally = &mut self.suites[suite];
        tally.tests += 1;
        match r.status {
            TestStatus::Fail | TestStatus::Undetermined => tally.failures += 1,
            TestStatus::Error => tally.errors += 1,
            TestStatus::Pass => {}
        }
        let mut case = std::mem::take(&mut self.case);
        case.clear();
        match rendered {
            Some(text) => case.push_str(text),
            None => testcase(r, &mut case),
        }
        self.case = case;
        self.spool_case(suite)
    }

    /// Appends `self.case` to the spool as a case of suite `suite`.
    fn spool_case(&mut self, suite: usize) -> Result<(), ReportError> {
        if self.spool.is_none() {
            let file = tempfile::tempfile().map_err(|e| ReportError::spool("junit", e))?;
            self.spool = Some(BufWriter::new(file));
        }
        if let Some(spool) = &mut self.spool {
            spool
                .write_all(self.case.as_bytes())
                .map_err(|e| ReportError::spool("junit", e))?;
        }
        let start = self.spool_len;
        self.spool_len += self.case.len() as u64;
        match self.segments.last_mut() {
            Some(last) if last.suite == suite && last.end == start => last.end = self.spool_len,
            _ => self.segments.push(Segment {
                suite,
                start,
                end: self.spool_len,
            }),
        }
        Ok(())
    }

    fn emit(&mut self, s: &str) -> Result<(), ReportError> {
        self.out
            .write_all(s.as_bytes())
            .map_err(|e| ReportError::write(&self.destination, e))
    }

    /// Copies spool bytes `start..end` to the output, telling spool (read)
    /// errors from destination (write) errors.
    fn copy_back(
        &mut self,
        file: &mut File,
        buf: &mut [u8],
        start: u64,
        end: u64,
    ) -> Result<(), ReportError> {
        file.seek(SeekFrom::Start(start))
            .map_err(|e| ReportError::spool("junit", e))?;
        let mut left = end - start;
        while left > 0 {
            let want = buf.len().min(usize::try_from(left).unwrap_or(buf.len()));
            let n = match file.read(&mut buf[..want]) {
                Ok(0) => {
                    return Err(ReportError::spool(
                        "junit",
                        io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "spool file is shorter than what was written",
                        ),
                    ))
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ReportError::spool("junit", e)),
            };
            self.out
                .write_all(&buf[..n])
                .map_err(|e| ReportError::write(&self.destination, e))?;
            left -= n as u64;
        }
        Ok(())
    }
}

impl<W: Write> Reporter for JunitReporter<W> {
    /// Names the document `pactum <command>`, and the suite of results
    /// with no input file after the run; nothing is written yet.
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        self.check_open("begin")?;
        self.name = format!("pactum {}", info.command);
        if let Some(run) = &info.run {
            self.run_suite = run.clone();
        }
        Ok(())
    }

    fn result(
        &mut self,
        r: &TraceResult,
        _expected: Option<TestStatus>,
    ) -> Result<(), ReportError> {
        self.write_case(r, None)
    }

    /// As [`Reporter::result`], with the test case rendered ahead when it
    /// was.
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        _expected: Option<TestStatus>,
        rendered: &Rendered,
    ) -> Result<(), ReportError> {
        self.write_case(r, rendered.junit.as_deref())
    }

    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        self.check_open("input_error")?;
        let suite = self.suite(&e.file);
        let tally = &mut self.suites[suite];
        tally.tests += 1;
        tally.errors += 1;
        let mut case = std::mem::take(&mut self.case);
        case.clear();
        input_error_case(e, &mut case);
        self.case = case;
        self.spool_case(suite)
    }

    /// In the suite of results with no input file, as the run's results.
    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        self.check_open("missing_trial")?;
        let name = self.run_suite.clone();
        let suite = self.suite(&name);
        let tally = &mut self.suites[suite];
        tally.tests += 1;
        tally.errors += 1;
        let mut case = std::mem::take(&mut self.case);
        case.clear();
        missing_trial_case(m, &mut case);
        self.case = case;
        self.spool_case(suite)
    }

    /// Writes the document: one `<testsuite>` per input file, in the order
    /// of `end.inputs` (files with no case get an empty suite), then any
    /// other file in order of first appearance.
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        self.check_open("finish")?;
        self.finished = true;
        let mut order: Vec<usize> = Vec::new();
        for input in &end.inputs {
            let i = self.suite(&input.path);
            if !order.contains(&i) {
                order.push(i);
            }
        }
        for i in 0..self.suites.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        let mut ranges: Vec<Vec<(u64, u64)>> = vec![Vec::new(); self.suites.len()];
        for seg in &self.segments {
            if let Some(r) = ranges.get_mut(seg.suite) {
                r.push((seg.start, seg.end));
            }
        }
        let mut file = match self.spool.take() {
            Some(spool) => Some(
                spool
                    .into_inner()
                    .map_err(|e| ReportError::spool("junit", e.into_error()))?,
            ),
            None => None,
        };
        let (tests, failures, errors) = self.suites.iter().fold((0, 0, 0), |(t, f, e), s| {
            (t + s.tests, f + s.failures, e + s.errors)
        });
        let head = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n",
            attr(&self.name)
        );
        self.emit(&head)?;
        let mut buf = vec![0u8; 64 * 1024];
        for i in order {
            let Some(suite) = self.suites.get(i) else {
                continue;
            };
            let open = format!(
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\"",
                attr(&suite.name),
                suite.tests,
                suite.failures,
                suite.errors
            );
            let suite_ranges = ranges.get(i).cloned().unwrap_or_default();
            match (&mut file, suite_ranges.is_empty()) {
                (Some(f), false) => {
                    self.emit(&open)?;
                    self.emit(">\n")?;
                    for (start, end) in suite_ranges {
                        self.copy_back(f, &mut buf, start, end)?;
                    }
                    self.emit("  </testsuite>\n")?;
                }
                _ => {
                    self.emit(&open)?;
                    self.emit("/>\n")?;
                }
            }
        }
        if !end.warnings.is_empty() {
            // Run-level warnings (a check that could never fire, a secret
            // the target leaked) reach a CI's JUnit view too: a suite of
            // no test, its output one line per warning.
            let lines: Vec<String> = end
                .warnings
                .iter()
                .map(|w| one_line(&format!("{}: {}", w.code, w.message), WARNING_CHARS))
                .collect();
            self.emit(&format!(
                "  <testsuite name=\"{}\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n    <system-out>{}</system-out>\n  </testsuite>\n",
                attr(WARNINGS_SUITE),
                text(&lines.join("\n"))
            ))?;
        }
        self.emit("</testsuites>\n")?;
        self.out
            .flush()
            .map_err(|e| ReportError::write(&self.destination, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_xml_1_0_characters_survive() {
        let s = "a\u{0}b\u{1}c\u{8}d\u{b}e\u{c}f\u{1b}[31mg\u{7f}h\u{85}i\u{fffe}j\u{ffff}k\tl\nm";
        // Noncharacters are named, as on every other report.
        assert_eq!(text(s), "abcdefghiU+FFFEjU+FFFFk\tl\nm");
        assert_eq!(
            attr("<a href=\"x\">&'\n</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos; &lt;/a&gt;"
        );
    }
}
