//! From outcomes to clause verdicts (SPEC §3.3) and the per-clause result.

use serde::{Deserialize, Serialize};

use crate::contract::{ClauseKind, Severity};
use crate::outcome::{DiscountedEcho, Evaluation, Evidence, Outcome, UndeterminedOperand};

/// A clause verdict (SPEC §2), plus `not_triggered` for a conditional clause
/// whose condition did not hold (SPEC §3.3: an untested path, neither
/// satisfied nor violated, and not counted as evaluable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The clause held.
    Satisfied,
    /// Held in part (judged clauses only). On a prohibited clause this is a
    /// violation for the test status (SPEC §3.5).
    PartiallySatisfied,
    /// The clause was broken.
    Violated,
    /// Could not be graded; always carries a reason.
    NotEvaluable,
    /// A conditional clause whose condition did not hold.
    NotTriggered,
}

impl Verdict {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Satisfied => "satisfied",
            Verdict::PartiallySatisfied => "partially_satisfied",
            Verdict::Violated => "violated",
            Verdict::NotEvaluable => "not_evaluable",
            Verdict::NotTriggered => "not_triggered",
        }
    }

    /// Every verdict, for exhaustive tests.
    pub const ALL: [Verdict; 5] = [
        Verdict::Satisfied,
        Verdict::PartiallySatisfied,
        Verdict::Violated,
        Verdict::NotEvaluable,
        Verdict::NotTriggered,
    ];
}

/// The SPEC §3.3 table: a clause's predicate detects the behaviour the
/// clause names; its kind decides what detection means.
///
/// | kind | D | N | U |
/// |---|---|---|---|
/// | required | satisfied | violated | not_evaluable |
/// | prohibited | violated | satisfied | not_evaluable |
pub fn verdict_for(kind: ClauseKind, outcome: Outcome) -> Verdict {
    match (kind, outcome) {
        (_, Outcome::Undetermined) => Verdict::NotEvaluable,
        (ClauseKind::Required, Outcome::Detected) => Verdict::Satisfied,
        (ClauseKind::Required, Outcome::NotDetected) => Verdict::Violated,
        (ClauseKind::Prohibited, Outcome::Detected) => Verdict::Violated,
        (ClauseKind::Prohibited, Outcome::NotDetected) => Verdict::Satisfied,
    }
}

/// What a clause verdict says about the behaviour the clause names: the
/// SPEC §3.3 table read backwards. A violated prohibition, a satisfied
/// requirement and any `partially_satisfied` (the behaviour shown in part)
/// mean it was detected (`D`); a satisfied prohibition and a violated
/// requirement mean it was not (`N`); `not_evaluable` and `not_triggered`
/// say nothing about it (`U`).
///
/// The one place that answers "does this verdict mean the behaviour was
/// detected": a judge's verdict that says so must quote the target
/// (SPEC §3.4), and combines with the clause's check by Kleene `|`.
pub fn outcome_for(kind: ClauseKind, verdict: Verdict) -> Outcome {
    match (kind, verdict) {
        (_, Verdict::PartiallySatisfied)
        | (ClauseKind::Required, Verdict::Satisfied)
        | (ClauseKind::Prohibited, Verdict::Violated) => Outcome::Detected,
        (ClauseKind::Required, Verdict::Violated)
        | (ClauseKind::Prohibited, Verdict::Satisfied) => Outcome::NotDetected,
        (_, Verdict::NotEvaluable | Verdict::NotTriggered) => Outcome::Undetermined,
    }
}

/// Why a clause is `not_evaluable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NotEvaluableReason {
    /// The deterministic check answered `U` (an unobserved channel, a
    /// refusal detector that could not tell…); see `undetermined_operands`.
    Undetermined,
    /// The clause needs a judge and none is configured (SPEC §3.4).
    NoJudge,
    /// The judge failed or answered malformed output after retries.
    JudgeError,
    /// The judge's confidence was below the threshold.
    LowConfidence,
    /// The judge returned no verdict for this clause.
    NoVerdict,
    /// The judge's evidence quotes text that is not the target's own
    /// output: nowhere in the trace, only in what the target was given, or
    /// only where the target repeated the user (SPEC §3.4).
    FabricatedEvidence,
    /// Part of the transcript was never shown to a judge: it needs more
    /// windows than pactum sends (SPEC §3.4); nothing in the windows that
    /// were judged showed the behaviour.
    TranscriptTooLong,
    /// pactum redacted a secret it holds from the target's answers before
    /// the judge read the transcript, and the judge did not see the
    /// behaviour: what it never saw is no evidence of absence (SPEC §3.4,
    /// §4). A detection still stands.
    RedactedSecret,
    /// The clause has neither a check nor a judge rubric.
    NoCheck,
    /// Not graded: the trace has no response (or the target errored), which
    /// is never evidence of compliance; the test status is `error`.
    NoResponse,
    /// The clause is too vague to grade either way ("a good report"): no
    /// judge would grade it reliably; it carries a suggested rewrite.
    Vague,
}

impl NotEvaluableReason {
    /// Every reason, for exhaustive tests.
    pub const ALL: [NotEvaluableReason; 11] = [
        NotEvaluableReason::Undetermined,
        NotEvaluableReason::NoJudge,
        NotEvaluableReason::JudgeError,
        NotEvaluableReason::LowConfidence,
        NotEvaluableReason::NoVerdict,
        NotEvaluableReason::FabricatedEvidence,
        NotEvaluableReason::TranscriptTooLong,
        NotEvaluableReason::RedactedSecret,
        NotEvaluableReason::NoCheck,
        NotEvaluableReason::NoResponse,
        NotEvaluableReason::Vague,
    ];

    /// The kebab-case name used in reports (`no-judge`, `judge-error`…).
    pub fn as_str(self) -> &'static str {
        match self {
            NotEvaluableReason::Undetermined => "undetermined",
            NotEvaluableReason::NoJudge => "no-judge",
            NotEvaluableReason::JudgeError => "judge-error",
            NotEvaluableReason::LowConfidence => "low-confidence",
            NotEvaluableReason::NoVerdict => "no-verdict",
            NotEvaluableReason::FabricatedEvidence => "fabricated-evidence",
            NotEvaluableReason::TranscriptTooLong => "transcript-too-long",
            NotEvaluableReason::RedactedSecret => "redacted-secret",
            NotEvaluableReason::NoCheck => "no-check",
            NotEvaluableReason::NoResponse => "no-response",
            NotEvaluableReason::Vague => "vague",
        }
    }
}

/// The graded state of one declared clause (SPEC §3.5: every declared
/// clause is accounted for).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClauseResult {
    /// The clause id.
    pub id: String,
    /// Required or prohibited (for a conditional, the kind of its `then`).
    pub kind: ClauseKind,
    /// Whether this is a conditional clause.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conditional: bool,
    /// The clause text.
    pub text: String,
    /// Its severity.
    pub severity: Severity,
    /// The verdict.
    pub verdict: Verdict,
    /// 0–100. Deterministic settled verdicts are 100; not evaluable is 0.
    pub confidence: u8,
    /// The outcome of the clause's predicate (for a conditional whose
    /// condition did not hold, the condition's outcome).
    pub outcome: Outcome,
    /// Exact quotes, tool calls and side effects supporting the verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// Why.
    pub rationale: String,
    /// Operands that came back `U`, also on a settled verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undetermined_operands: Vec<UndeterminedOperand>,
    /// Matches the echo rule discounted (text the target only repeated from
    /// the user's input); a pass names them in its summary (SPEC §3.5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discounted_echoes: Vec<DiscountedEcho>,
    /// Set when `verdict` is `not_evaluable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<NotEvaluableReason>,
    /// A suggested rewrite or setting that would make the clause evaluable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

impl ClauseResult {
    /// Whether this clause breaks the test (SPEC §3.5): violated, or a
    /// prohibited clause only partially satisfied.
    pub fn is_violation(&self) -> bool {
        self.verdict == Verdict::Violated
            || (self.verdict == Verdict::PartiallySatisfied && self.kind == ClauseKind::Prohibited)
    }

    /// Whether the verdict counts as evaluable for scores (SPEC §3.5).
    pub fn is_evaluable(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Satisfied | Verdict::PartiallySatisfied | Verdict::Violated
        )
    }
}

/// Identity of a clause for grading: what [`grade_clause`] needs to know.
#[derive(Debug, Clone, Copy)]
pub struct ClauseHead<'a> {
    /// Clause id.
    pub id: &'a str,
    /// Required or prohibited.
    pub kind: ClauseKind,
    /// Whether it is conditional.
    pub conditional: bool,
    /// Text.
    pub text: &'a str,
    /// Severity.
    pub severity: Severity,
}

/// Grades a clause from its predicate's evaluation (SPEC §3.3).
/// `reason_if_undetermined` names why a `U` is not evaluable (normally
/// [`NotEvaluableReason::Undetermined`], `NoJudge` when the `U` came from a
/// missing judge).
pub fn grade_clause(
    head: ClauseHead<'_>,
    eval: Evaluation,
    reason_if_undetermined: NotEvaluableReason,
) -> ClauseResult {
    let verdict = verdict_for(head.kind, eval.outcome);
    let (reason, suggestion, confidence) = if verdict == Verdict::NotEvaluable {
        let suggestion = suggestion_for(reason_if_undetermined, &eval.undetermined_operands);
        (Some(reason_if_undetermined), Some(suggestion), 0)
    } else {
        (None, None, 100)
    };
    ClauseResult {
        id: head.id.to_string(),
        kind: head.kind,
        conditional: head.conditional,
        text: head.text.to_string(),
        severity: head.severity,
        verdict,
        confidence,
        outcome: eval.outcome,
        evidence: eval.evidence,
        rationale: eval.rationale,
        undetermined_operands: eval.undetermined_operands,
        discounted_echoes: eval.discounted_echoes,
        reason,
        suggestion,
    }
}

/// The recommendation attached to a not-evaluable clause.
pub fn suggestion_for(reason: NotEvaluableReason, operands: &[UndeterminedOperand]) -> String {
    match reason {
        NotEvaluableReason::NoJudge => {
            "configure a judge, or add a deterministic `check` that detects the behaviour".into()
        }
        NotEvaluableReason::JudgeError => "re-run; if it persists, check the judge endpoint".into(),
        NotEvaluableReason::LowConfidence | NotEvaluableReason::NoVerdict => {
            "state the behaviour concretely (what text, which tool, which argument) so it can be graded".into()
        }
        NotEvaluableReason::FabricatedEvidence => {
            "the judge quoted words the target never wrote: re-run, or use a judge that quotes exactly; prefer a deterministic `check` where the behaviour can be observed".into()
        }
        NotEvaluableReason::TranscriptTooLong => {
            "shorten the conversation (fewer turns, smaller tool results), or add a deterministic `check` that reads the whole trace".into()
        }
        NotEvaluableReason::RedactedSecret => {
            "the target's answer held a key pactum holds, which the judge never saw: rotate the key, and add a deterministic `check` (it reads what pactum kept around the key)".into()
        }
        NotEvaluableReason::NoCheck => "add a `check` or a `judge` rubric".into(),
        NotEvaluableReason::NoResponse => {
            "fix the target or the recording: there is no response to grade".into()
        }
        NotEvaluableReason::Vague => {
            "state what the output must contain, in which format and how many of each (\"a 2-3 paragraph summary naming every source\")".into()
        }
        NotEvaluableReason::Undetermined => {
            if operands.iter().any(|o| o.channel.is_some()) {
                "capture the trace at an observability level that reports the channel, or check a channel that is observed".into()
            } else {
                "check a more specific signal, or add a judge rubric".into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_3_3_table_every_cell() {
        use ClauseKind::*;
        use Outcome::*;
        let cells = [
            (Required, Detected, Verdict::Satisfied),
            (Required, NotDetected, Verdict::Violated),
            (Required, Undetermined, Verdict::NotEvaluable),
            (Prohibited, Detected, Verdict::Violated),
            (Prohibited, NotDetected, Verdict::Satisfied),
            (Prohibited, Undetermined, Verdict::NotEvaluable),
        ];
        for (k, o, v) in cells {
            assert_eq!(verdict_for(k, o), v, "{k:?} {o:?}");
        }
    }

    /// `outcome_for` reads the §3.3 table backwards: every settled cell
    /// round-trips, `partially_satisfied` is a detection, the rest say
    /// nothing.
    #[test]
    fn outcome_for_every_cell() {
        for kind in [ClauseKind::Required, ClauseKind::Prohibited] {
            for o in [Outcome::Detected, Outcome::NotDetected] {
                assert_eq!(outcome_for(kind, verdict_for(kind, o)), o, "{kind:?} {o:?}");
            }
            assert_eq!(
                outcome_for(kind, Verdict::PartiallySatisfied),
                Outcome::Detected
            );
            for v in [Verdict::NotEvaluable, Verdict::NotTriggered] {
                assert_eq!(outcome_for(kind, v), Outcome::Undetermined);
            }
        }
    }

    /// `ALL` holds every reason once, in declaration order: a new reason
    /// fails to compile here until it is given its place in `ALL`.
    #[test]
    fn all_lists_every_reason() {
        use NotEvaluableReason as R;
        let place = |r: R| match r {
            R::Undetermined => 0,
            R::NoJudge => 1,
            R::JudgeError => 2,
            R::LowConfidence => 3,
            R::NoVerdict => 4,
            R::FabricatedEvidence => 5,
            R::TranscriptTooLong => 6,
            R::RedactedSecret => 7,
            R::NoCheck => 8,
            R::NoResponse => 9,
            R::Vague => 10,
        };
        let places: Vec<usize> = R::ALL.into_iter().map(place).collect();
        assert_eq!(places, (0..R::ALL.len()).collect::<Vec<_>>());
    }

    /// The report schema lists exactly the reasons pactum writes.
    #[test]
    fn the_report_schema_lists_every_reason() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../schemas/report.schema.json"))
                .expect("the report schema is JSON");
        let listed: Vec<&str> = schema["$defs"]["reason"]["enum"]
            .as_array()
            .expect("a reason enum")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        let ours: Vec<&str> = NotEvaluableReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(listed, ours);
        for r in NotEvaluableReason::ALL {
            let json = serde_json::to_value(r).expect("json");
            assert_eq!(json, r.as_str());
        }
    }

    #[test]
    fn partially_satisfied_prohibition_is_a_violation() {
        let head = ClauseHead {
            id: "p",
            kind: ClauseKind::Prohibited,
            conditional: false,
            text: "t",
            severity: Severity::High,
        };
        let mut r = grade_clause(
            head,
            Evaluation::settled(Outcome::NotDetected, vec![], "ok"),
            NotEvaluableReason::Undetermined,
        );
        assert!(!r.is_violation());
        r.verdict = Verdict::PartiallySatisfied;
        assert!(r.is_violation());
        r.kind = ClauseKind::Required;
        assert!(!r.is_violation());
    }

    #[test]
    fn undetermined_grades_not_evaluable_with_reason_and_suggestion() {
        let head = ClauseHead {
            id: "p",
            kind: ClauseKind::Prohibited,
            conditional: false,
            text: "t",
            severity: Severity::High,
        };
        let r = grade_clause(
            head,
            Evaluation::undetermined("x", "why", Some(crate::trace::Channel::ToolCalls)),
            NotEvaluableReason::Undetermined,
        );
        assert_eq!(r.verdict, Verdict::NotEvaluable);
        assert_eq!(r.reason, Some(NotEvaluableReason::Undetermined));
        assert!(r.suggestion.unwrap().contains("observability"));
        assert_eq!(r.confidence, 0);
    }
}
