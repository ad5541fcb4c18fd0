//! Text shared by the terminal, JUnit and agreement reports: bounded
//! one-line excerpts of untrusted text (SPEC §4), evidence, and the clause
//! breakdown of one trace.

use pactum_core::text::one_line;
use pactum_core::{ClauseResult, Evidence, TraceResult, Verdict};

/// Longest trace or clause id shown, in characters.
pub(crate) const ID_CHARS: usize = 120;
/// Longest status summary shown, in characters.
pub(crate) const SUMMARY_CHARS: usize = 500;
/// Longest excerpt of evidence, rationale or reason shown, in characters.
pub(crate) const EXCERPT_CHARS: usize = 160;
/// Clauses listed in one trace's breakdown before "… and N more".
pub(crate) const CLAUSES_SHOWN: usize = 20;
/// Contract ids listed on one trace line before "+N".
pub(crate) const CONTRACT_IDS_SHOWN: usize = 5;

/// Whether a result has something its summary names beyond "held": a
/// clause left not evaluable (on a pass, necessarily below the floor), an
/// untriggered conditional (an untested path, SPEC §3.3), or a match the
/// echo rule discounted. Such passes are listed even when clean passes are
/// only counted.
pub(crate) fn has_notes(r: &TraceResult) -> bool {
    r.contracts.iter().flat_map(|c| &c.clauses).any(|c| {
        matches!(c.verdict, Verdict::NotEvaluable | Verdict::NotTriggered)
            || !c.discounted_echoes.is_empty()
    })
}

/// A trace or clause id, made safe for one line.
pub(crate) fn id(s: &str) -> String {
    one_line(s, ID_CHARS)
}

/// The status summary, made safe for one line.
pub(crate) fn summary(r: &TraceResult) -> String {
    one_line(&r.summary, SUMMARY_CHARS)
}

/// `banking, slack` (at most [`CONTRACT_IDS_SHOWN`], then `+N`).
pub(crate) fn contract_ids(r: &TraceResult) -> String {
    let mut ids: Vec<String> = r
        .contracts
        .iter()
        .take(CONTRACT_IDS_SHOWN)
        .map(|c| id(&c.contract_id))
        .collect();
    if r.contracts.len() > CONTRACT_IDS_SHOWN {
        ids.push(format!("+{}", r.contracts.len() - CONTRACT_IDS_SHOWN));
    }
    ids.join(", ")
}

/// One piece of evidence as a line: where it is and what it says.
pub(crate) fn evidence(e: &Evidence) -> String {
    match e {
        Evidence::Quote { turn, source, text } => format!(
            "turn {turn} {} \"{}\"",
            one_line(source, 40),
            one_line(text, EXCERPT_CHARS)
        ),
        Evidence::ToolCall {
            turn,
            name,
            arguments,
            errored,
            ..
        } => format!(
            "turn {turn} tool call {} {}{}",
            id(name),
            one_line(&arguments.to_string(), EXCERPT_CHARS),
            if *errored { " (errored)" } else { "" }
        ),
        Evidence::SideEffect {
            turn,
            effect,
            details,
        } => format!(
            "turn {turn} side effect {} {}",
            id(effect),
            one_line(&details.to_string(), EXCERPT_CHARS)
        ),
        Evidence::Field { pointer, value } => format!(
            "field {} = {}",
            one_line(pointer, 80),
            one_line(&value.to_string(), EXCERPT_CHARS)
        ),
    }
}

/// The first evidence (with a count of the rest), else the rationale.
pub(crate) fn first_evidence_or_rationale(c: &ClauseResult) -> String {
    match c.evidence.first() {
        Some(e) if c.evidence.len() > 1 => {
            format!("{} (+{} more)", evidence(e), c.evidence.len() - 1)
        }
        Some(e) => evidence(e),
        None => one_line(&c.rationale, EXCERPT_CHARS),
    }
}

/// Why a not-evaluable clause could not be graded: the first operand reason
/// (it names level, channel and what was looked for), else the rationale.
pub(crate) fn not_evaluable_why(c: &ClauseResult) -> String {
    let why = c
        .undetermined_operands
        .iter()
        .map(|u| u.reason.as_str())
        .find(|r| !r.trim().is_empty())
        .unwrap_or(&c.rationale);
    one_line(why, EXCERPT_CHARS)
}

/// What a breakdown line shows after the verdict: evidence or rationale for
/// a graded clause; reason, why and suggestion for a not-evaluable one; the
/// condition for an untriggered conditional.
pub(crate) fn clause_detail(c: &ClauseResult) -> String {
    match c.verdict {
        Verdict::NotEvaluable => {
            let reason = c.reason.map_or("not-evaluable", |r| r.as_str());
            let mut s = format!("{reason}: {}", not_evaluable_why(c));
            if let Some(sug) = &c.suggestion {
                s.push_str(" — suggestion: ");
                s.push_str(&one_line(sug, EXCERPT_CHARS));
            }
            s
        }
        Verdict::NotTriggered => {
            format!(
                "condition not met: {}",
                one_line(&c.rationale, EXCERPT_CHARS)
            )
        }
        _ => first_evidence_or_rationale(c),
    }
}

/// `prohibited`, `required`, or `conditional prohibited`.
pub(crate) fn kind(c: &ClauseResult) -> String {
    if c.conditional {
        format!("conditional {}", c.kind.as_str())
    } else {
        c.kind.as_str().to_string()
    }
}

/// How a clause line is marked; the terminal colours it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// Held.
    Held,
    /// Broke the test (violated, or a partially satisfied prohibition).
    Broken,
    /// Partially satisfied required clause: not a violation.
    Partial,
    /// Not evaluable.
    Unknown,
    /// Not triggered.
    Untested,
}

impl Mark {
    pub(crate) fn of(c: &ClauseResult) -> Mark {
        if c.is_violation() {
            return Mark::Broken;
        }
        match c.verdict {
            Verdict::Satisfied => Mark::Held,
            Verdict::PartiallySatisfied => Mark::Partial,
            Verdict::Violated => Mark::Broken,
            Verdict::NotEvaluable => Mark::Unknown,
            Verdict::NotTriggered => Mark::Untested,
        }
    }

    pub(crate) fn symbol(self) -> char {
        match self {
            Mark::Held => '✓',
            Mark::Broken => '✗',
            Mark::Partial => '~',
            Mark::Unknown => '?',
            Mark::Untested => '-',
        }
    }
}

/// One line of a clause breakdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BreakdownLine {
    /// `None` for a contract heading or a "… and N more" line.
    pub mark: Option<Mark>,
    /// The text after the mark (already bounded and escaped for a terminal).
    pub text: String,
}

impl BreakdownLine {
    /// The line as plain text (mark, space, text).
    pub(crate) fn plain(&self) -> String {
        match self.mark {
            Some(m) => format!("{} {}", m.symbol(), self.text),
            None => self.text.clone(),
        }
    }
}

/// The clause breakdown of one trace: its clauses (at most
/// [`CLAUSES_SHOWN`] in all, then "… and N more") with mark, id, kind,
/// severity, verdict and detail, in aligned columns; a heading per contract
/// when more than one contract applied. At most `2 × CLAUSES_SHOWN + 1`
/// lines.
pub(crate) fn breakdown(r: &TraceResult) -> Vec<BreakdownLine> {
    struct Row {
        mark: Mark,
        cols: [String; 4],
        detail: String,
    }
    let mut groups: Vec<(String, Vec<Row>)> = Vec::new();
    let mut width = [0usize; 4];
    let mut shown = 0usize;
    let mut more = 0usize;
    for c in &r.contracts {
        let room = CLAUSES_SHOWN - shown;
        more += c.clauses.len().saturating_sub(room);
        if room == 0 {
            continue;
        }
        let rows: Vec<Row> = c
            .clauses
            .iter()
            .take(room)
            .map(|cl| Row {
                mark: Mark::of(cl),
                cols: [
                    id(&cl.id),
                    kind(cl),
                    cl.severity.as_str().to_string(),
                    cl.verdict.as_str().to_string(),
                ],
                detail: clause_detail(cl),
            })
            .collect();
        shown += rows.len();
        for row in &rows {
            for (w, col) in width.iter_mut().zip(&row.cols) {
                *w = (*w).max(col.chars().count());
            }
        }
        groups.push((id(&c.contract_id), rows));
    }
    let headings = r.contracts.len() > 1;
    let mut out = Vec::new();
    for (contract, rows) in groups {
        if headings {
            out.push(BreakdownLine {
                mark: None,
                text: format!("contract {contract}:"),
            });
        }
        for row in rows {
            let mut text = String::new();
            for (w, col) in width.iter().zip(&row.cols) {
                text.push_str(col);
                text.extend(std::iter::repeat_n(' ', w - col.chars().count() + 2));
            }
            text.push_str(&row.detail);
            out.push(BreakdownLine {
                mark: Some(row.mark),
                text: text.trim_end().to_string(),
            });
        }
    }
    if more > 0 {
        out.push(BreakdownLine {
            mark: None,
            text: format!("… and {more} more clause(s) (see the JSON report)"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pactum_core::contract::{ClauseKind, Severity};
    use pactum_core::Outcome;

    fn clause(kind: ClauseKind, verdict: Verdict) -> ClauseResult {
        ClauseResult {
            id: "c".into(),
            kind,
            conditional: false,
            text: "t".into(),
            severity: Severity::High,
            verdict,
            confidence: 100,
            outcome: Outcome::Detected,
            evidence: vec![],
            rationale: "r".into(),
            undetermined_operands: vec![],
            discounted_echoes: vec![],
            reason: None,
            suggestion: None,
        }
    }

    /// Every verdict × kind gets the mark its status role implies.
    #[test]
    fn marks_for_every_verdict_and_kind() {
        for k in [ClauseKind::Required, ClauseKind::Prohibited] {
            for v in Verdict::ALL {
                let expected = match (k, v) {
                    (_, Verdict::Satisfied) => '✓',
                    (_, Verdict::Violated) => '✗',
                    (ClauseKind::Prohibited, Verdict::PartiallySatisfied) => '✗',
                    (ClauseKind::Required, Verdict::PartiallySatisfied) => '~',
                    (_, Verdict::NotEvaluable) => '?',
                    (_, Verdict::NotTriggered) => '-',
                };
                assert_eq!(Mark::of(&clause(k, v)).symbol(), expected, "{k:?} {v:?}");
            }
        }
    }

    #[test]
    fn evidence_lines_are_bounded_and_escaped() {
        let long = "x".repeat(1000);
        let e = Evidence::Quote {
            turn: 1,
            source: "response".into(),
            text: format!("\u{1b}[31m{long}"),
        };
        let line = evidence(&e);
        assert!(!line.contains('\u{1b}'));
        assert!(line.chars().count() < EXCERPT_CHARS + 40, "{}", line.len());
        assert!(line.contains('…'));
    }
}
