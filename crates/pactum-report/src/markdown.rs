//! The Markdown summary (`--markdown PATH`, `docs/reports.md`): totals,
//! then every test that did not pass (failures first) with the clause that
//! decided it and its first evidence, sized for a CI step summary or a
//! pull-request comment.
//!
//! Rendered from the JSON report's own document ([`crate::document`]).
//! Bounded: the whole summary is at most [`MARKDOWN_BYTES`] bytes (a
//! GitHub comment holds 65,536 characters, a step summary 1 MiB); lines
//! that do not fit are counted in a closing line that points to the JSON
//! report. Untrusted text (SPEC §4) is cut to one line, stripped of
//! controls and escapes, and escaped by [`markdown_text`]: no trace can
//! add a link, an image, raw HTML or a table cell.

use std::fs::File;
use std::io::{BufReader, Write};

use pactum_core::text::one_line;
use pactum_core::TestStatus;
use serde_json::{Map, Value};

use crate::agreement::decided_by;
use crate::document::{read_document, Render, RenderError, Spooled};
use crate::html::header_policy;
use crate::{render, ReportError, Reporter, RunEnd};

/// The most bytes a Markdown summary holds, its closing line included.
pub const MARKDOWN_BYTES: usize = 60_000;

/// Room kept for the lines after the list (warnings, closing line).
const TAIL_BYTES: usize = 8_000;

/// Contracts, conditional clauses and other lists of an OpenProse run
/// shown before "… and N more".
const OPENPROSE_SHOWN: usize = 20;

/// Warnings listed before "… and N more".
const WARNINGS_SHOWN: usize = 20;

/// `s` as Markdown text that renders as exactly those characters: every
/// ASCII punctuation character is backslash-escaped (CommonMark allows it
/// for each, and it is what keeps `|` inside a table cell, and `<`, `[`,
/// `!`, `` ` ``, `*` from starting HTML, a link, an image, code or
/// emphasis), and the text is first made one bounded line without
/// controls ([`one_line`]), so no newline can end a table row. `@` and
/// `#` are each written as a code span of their own (`` `@` ``): GitHub
/// links an e-mail address, mentions `@someone` and references `#12` in
/// text even when escaped (the e-mail autolink runs after escapes are
/// resolved, an entity `&#64;` too), never inside code, and a code span
/// between the two halves of an address splits it.
pub fn markdown_text(s: &str, max_chars: usize) -> String {
    let line = one_line(s, max_chars);
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        if c == '@' || c == '#' {
            out.push('`');
            out.push(c);
            out.push('`');
            continue;
        }
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Renders the Markdown summary from a JSON report document.
pub(crate) struct MarkdownRender;

impl Render for MarkdownRender {
    fn render(
        &mut self,
        doc: &mut BufReader<File>,
        out: &mut dyn Write,
    ) -> Result<(), RenderError> {
        let text = render_markdown(doc)?;
        out.write_all(text.as_bytes()).map_err(RenderError::Write)
    }
}

/// Lines of one status group, kept while they fit the budget.
#[derive(Default)]
struct Group {
    lines: Vec<String>,
    bytes: usize,
    omitted: u64,
}

fn head_str<'a>(head: &'a Map<String, Value>, key: &str) -> &'a str {
    head.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Whether the run's warnings say a clause was only partly kept: an
/// OpenProse contract holding one does not pass (`docs/openprose.md`).
fn partly_kept(head: &Map<String, Value>) -> bool {
    head.get("warnings")
        .and_then(Value::as_array)
        .is_some_and(|w| {
            w.iter()
                .any(|w| w.get("code") == Some(&Value::from("partly-kept")))
        })
}

fn render_markdown(doc: &mut BufReader<File>) -> Result<String, RenderError> {
    let budget = MARKDOWN_BYTES - TAIL_BYTES;
    let mut groups: Vec<Group> = TestStatus::ALL.iter().map(|_| Group::default()).collect();
    let mut policy = None;
    let head = read_document(&mut *doc, &mut |head, entry| {
        let r = &entry.result;
        if r.status == TestStatus::Pass {
            return Ok(());
        }
        if policy.is_none() {
            policy = Some(header_policy(head).map_err(|e| e.to_string())?);
        }
        let Some(policy) = &policy else {
            return Err("no policy".into());
        };
        let group = TestStatus::ALL
            .iter()
            .position(|s| *s == r.status)
            .ok_or("unknown status")?;
        let g = &mut groups[group];
        if g.bytes >= budget {
            g.omitted += 1;
            return Ok(());
        }
        let contracts: Vec<String> = r
            .contracts
            .iter()
            .map(|c| markdown_text(&c.contract_id, render::ID_CHARS))
            .collect();
        let line = format!(
            "| {} | {} | {} | {} |\n",
            r.status.label(),
            markdown_text(&r.trace_id, render::ID_CHARS),
            contracts.join(", "),
            markdown_text(&decided_by(r, policy).2, render::SUMMARY_CHARS),
        );
        g.bytes += line.len();
        g.lines.push(line);
        Ok(())
    })?;
    let totals = head
        .get("totals")
        .ok_or_else(|| RenderError::Malformed("no totals".into()))?;
    let count = |k: &str| totals.get(k).and_then(Value::as_u64).unwrap_or(0);
    let mut s = format!(
        "## pactum {}: {} fail, {} error, {} undetermined, {} pass ({} trace{})\n\n",
        markdown_text(head_str(&head, "command"), 40),
        count("fail"),
        count("error"),
        count("undetermined"),
        count("pass"),
        count("traces"),
        if count("traces") == 1 { "" } else { "s" },
    );
    if totals.get("partial").and_then(Value::as_bool) == Some(true) {
        s.push_str(&format!(
            "**The run is partial**: {} input error(s), {} trial(s) never stored.\n\n",
            count("input_errors"),
            count("missing_trials")
        ));
    }
    if let Some(runs) = head.get("openprose").filter(|v| !v.is_null()) {
        let runs: Vec<pactum_openprose::RunGrade> = serde_json::from_value(runs.clone())
            .map_err(|e| RenderError::Malformed(format!("openprose: {e}")))?;
        s.push_str(&crate::openprose::markdown_runs(
            &runs,
            OPENPROSE_SHOWN,
            budget / 2,
        ));
        // What follows is about every contract's result, not the last run.
        s.push_str("### Results\n\n");
    }
    if let Some(contracts) = head.get("contracts").and_then(Value::as_array) {
        if !contracts.is_empty() {
            let ids: Vec<String> = contracts
                .iter()
                .take(render::CONTRACT_IDS_SHOWN * 2)
                .map(|c| {
                    markdown_text(
                        c.get("id").and_then(Value::as_str).unwrap_or(""),
                        render::ID_CHARS,
                    )
                })
                .collect();
            let more = contracts.len().saturating_sub(ids.len());
            s.push_str(&format!(
                "Contracts: {}{}\n\n",
                ids.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    let listed: usize = groups.iter().map(|g| g.lines.len()).sum();
    let mut omitted: u64 = groups.iter().map(|g| g.omitted).sum();
    if listed > 0 {
        s.push_str(
            "| status | trace | contracts | deciding clause and evidence |\n|---|---|---|---|\n",
        );
        for g in &groups {
            for line in &g.lines {
                if s.len() + line.len() > budget {
                    omitted += 1;
                } else {
                    s.push_str(line);
                }
            }
        }
        s.push('\n');
    } else if count("traces") == 0 {
        // Nothing graded is never a pass.
        s.push_str("**Nothing was graded.**\n\n");
    } else if partly_kept(&head) {
        // Passing statuses (SPEC §3.5), and yet the run does not pass.
        s.push_str("No test failed, but a clause was only partly kept (`partly-kept`, below): the run does not pass.\n\n");
    } else if totals.get("partial").and_then(Value::as_bool) == Some(false) {
        s.push_str("Every test passed.\n\n");
    } else {
        s.push_str("Every graded test passed, but the run is partial (above).\n\n");
    }
    if let Some(warnings) = head.get("warnings").and_then(Value::as_array) {
        if !warnings.is_empty() {
            s.push_str(&format!("Warnings ({}):\n\n", warnings.len()));
            for w in warnings.iter().take(WARNINGS_SHOWN) {
                let field = |k: &str| w.get(k).and_then(Value::as_str).unwrap_or("");
                s.push_str(&format!(
                    "- {}: {}\n",
                    markdown_text(field("code"), 60),
                    markdown_text(field("message"), 240)
                ));
            }
            if warnings.len() > WARNINGS_SHOWN {
                s.push_str(&format!(
                    "- … and {} more\n",
                    warnings.len() - WARNINGS_SHOWN
                ));
            }
            s.push('\n');
        }
    }
    if let Some(a) = head.get("agreement").filter(|a| !a.is_null()) {
        let pct = a.get("accuracy").and_then(Value::as_f64);
        let kappa = a.get("kappa").and_then(Value::as_f64);
        s.push_str(&format!(
            "Agreement with expected statuses: {} labelled, accuracy {}, Cohen's kappa {}, {} disagreement(s).\n\n",
            a.get("labelled").and_then(Value::as_u64).unwrap_or(0),
            pct.map_or("undefined".to_string(), |p| format!("{:.1}%", p * 100.0)),
            kappa.map_or("undefined".to_string(), |k| format!("{k:.3}")),
            a.get("disagreements").and_then(Value::as_array).map_or(0, Vec::len),
        ));
    }
    if omitted > 0 {
        s.push_str(&format!(
            "{omitted} more test(s) that did not pass are not listed: this summary is bounded to {MARKDOWN_BYTES} bytes; the JSON report (`--json`) lists every result.\n"
        ));
    }
    Ok(s)
}

/// The Markdown summary as a [`Reporter`]: spools the JSON report,
/// renders the summary at `finish`.
pub struct MarkdownReporter<W: Write>(Spooled<W, MarkdownRender>);

impl<W: Write> MarkdownReporter<W> {
    /// A reporter writing the summary to `out`.
    ///
    /// # Errors
    /// [`ReportError::Spool`] when its temporary file cannot be created.
    pub fn new(out: W) -> Result<Self, ReportError> {
        Ok(MarkdownReporter(Spooled::new(
            out,
            MarkdownRender,
            "markdown",
        )?))
    }

    /// Names the destination (normally the report's path) in error messages.
    pub fn with_destination(self, destination: impl Into<String>) -> Self {
        MarkdownReporter(self.0.with_destination(destination))
    }
}

impl<W: Write> Reporter for MarkdownReporter<W> {
    fn begin(&mut self, info: &crate::RunInfo) -> Result<(), ReportError> {
        self.0.begin(info)
    }
    fn result(
        &mut self,
        r: &pactum_core::TraceResult,
        expected: Option<TestStatus>,
    ) -> Result<(), ReportError> {
        self.0.result(r, expected)
    }
    fn input_error(&mut self, e: &crate::InputError) -> Result<(), ReportError> {
        self.0.input_error(e)
    }
    fn missing_trial(&mut self, m: &crate::MissingTrial) -> Result<(), ReportError> {
        self.0.missing_trial(m)
    }
    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        self.0.finish(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn markdown_specials_are_escaped() {
        assert_eq!(markdown_text("a|b", 50), "a\\|b");
        assert_eq!(
            markdown_text("<img src=x onerror=alert(1)>", 50),
            "\\<img src\\=x onerror\\=alert\\(1\\)\\>"
        );
        assert_eq!(
            markdown_text("[x](javascript:alert(1))", 50),
            "\\[x\\]\\(javascript\\:alert\\(1\\)\\)"
        );
        assert_eq!(markdown_text("line\nbreak", 50), "line break");
        assert_eq!(markdown_text("é ü", 50), "é ü");
        assert_eq!(
            markdown_text("mail a@evil.example, cc @octo/team, fixes #1", 80),
            "mail a`@`evil\\.example\\, cc `@`octo\\/team\\, fixes `#`1"
        );
    }

    proptest! {
        /// Whatever the text, the escaped form is one line, every ASCII
        /// punctuation character in it is escaped (`@` and `#` as a code
        /// span), and removing the escapes gives back the one-line text.
        #[test]
        fn escaped_text_is_one_inert_line(s in any::<String>()) {
            let e = markdown_text(&s, 500);
            prop_assert!(!e.contains(['\n', '\r']));
            let mut chars = e.chars();
            let mut back = String::new();
            while let Some(c) = chars.next() {
                if c == '`' {
                    let inner = chars.next();
                    prop_assert!(inner.is_some_and(|n| n == '@' || n == '#'), "{e:?}");
                    prop_assert_eq!(chars.next(), Some('`'), "{}", e);
                    back.extend(inner);
                } else if c == '\\' {
                    let next = chars.next();
                    prop_assert!(
                        next.is_some_and(|n| n.is_ascii_punctuation() && n != '@' && n != '#'),
                        "{e:?}"
                    );
                    back.extend(next);
                } else {
                    prop_assert!(!c.is_ascii_punctuation(), "unescaped {c:?} in {e:?}");
                    back.push(c);
                }
            }
            prop_assert_eq!(back, one_line(&s, 500));
        }
    }
}
