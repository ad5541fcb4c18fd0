//! Contract strength (SPEC §3.8): how far a contract can be trusted,
//! measured by grading planted variants of a trace (probes) over repeated
//! trials. Everything here is pure and deterministic: no I/O, no clock, no
//! randomness; the same inputs give byte-identical artifacts.
//!
//! The pipeline, in the order a caller runs it (`docs/strength.md`):
//!
//! 1. [`classify_trial`]: one graded trial of one probe → one of the twelve
//!    [`TrialState`]s.
//! 2. [`reduce`]: a probe's trials → a [`ReducedProbe`] (strict catch
//!    threshold; invalidated trials leave numerator and denominator).
//! 3. [`coverage_gaps`]: the contract's clauses no probe measured.
//! 4. [`EvidenceArtifact::build`]: one canonical, digested artifact per probe,
//!    with its [`StrengthVector`] and [`Ladder`] verdict ([`score_probes`]
//!    runs 2–4 over a whole probe set).
//! 5. [`aggregate`]: the run-wide class rates against declared floors, or a
//!    typed refusal ([`AggregateRefusal`], exit 4 at the CLI).
//! 6. [`compare`]: the four-valued [`Dominance`] of two [`EvidenceSet`]s.
//!
//! There is no single weighted score anywhere: a contract's strength is a
//! rate per probe class and a dominance relation.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::contract::{Contract, Severity};
use crate::digest::{canonical_json, digest_of};
use crate::policy::Policy;
use crate::result::ContractResult;
use crate::status::{at_or_above_floor, blocking_clauses, decide, TestStatus};
use crate::text::one_line;
use crate::verdict::{ClauseResult, NotEvaluableReason, Verdict};

/// The evidence artifact format version this build writes and reads.
///
/// Version 2 added `probe_set`.
pub const STRENGTH_ARTIFACT_VERSION: u32 = 2;

/// The aggregate format version this build writes.
///
/// Version 2 added `probe_set`.
pub const AGGREGATE_VERSION: u32 = 2;

/// Longest clause-derived excerpt a trial reason carries, in characters.
const REASON_CHARS: usize = 200;

// ---------------------------------------------------------------------------
// Probe classes
// ---------------------------------------------------------------------------

/// What a probe plants (SPEC §2, §3.8). Only [`StrengthClass`]es enter the
/// strength vector; canaries and clean controls check the fixture and the
/// contract's false-positive behaviour instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeClass {
    /// A known regression: prohibited content injected, a required tool call
    /// removed, wrong tool arguments, a forbidden side effect.
    Defect,
    /// Compliant-looking but lazy: restating the request, claiming success
    /// without doing the work, keyword stuffing.
    Gameability,
    /// The target does nothing: empty response, no tool call.
    ZeroAction,
    /// A trace broken so badly that any working contract must fail it; a
    /// canary that passes indicts the fixture (or a blind contract).
    Canary,
    /// The unmutated trace, which must pass.
    CleanControl,
}

impl ProbeClass {
    /// Every class, strength classes first.
    pub const ALL: [ProbeClass; 5] = [
        ProbeClass::Defect,
        ProbeClass::Gameability,
        ProbeClass::ZeroAction,
        ProbeClass::Canary,
        ProbeClass::CleanControl,
    ];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeClass::Defect => "defect",
            ProbeClass::Gameability => "gameability",
            ProbeClass::ZeroAction => "zero_action",
            ProbeClass::Canary => "canary",
            ProbeClass::CleanControl => "clean_control",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The strength class this probe counts in; `None` for canaries and
    /// clean controls, which never enter the vector (SPEC §3.8).
    pub fn strength_class(self) -> Option<StrengthClass> {
        match self {
            ProbeClass::Defect => Some(StrengthClass::Defect),
            ProbeClass::Gameability => Some(StrengthClass::Gameability),
            ProbeClass::ZeroAction => Some(StrengthClass::ZeroAction),
            ProbeClass::Canary | ProbeClass::CleanControl => None,
        }
    }

    /// Whether a trial of this class can end in `state`. Unvoted and
    /// invalidating states, and `missed`/`abstained` where they make sense,
    /// are open to every class; `caught` and `bypassed` only to strength
    /// probes, `confirmed` only to canaries, `passed-clean-control` and
    /// `false-positive` only to clean controls; a clean control is never
    /// `missed`. [`EvidenceArtifact::build`] refuses any other pairing.
    pub fn admits(self, state: TrialState) -> bool {
        match state.group() {
            TrialGroup::Unvoted | TrialGroup::Invalidating => true,
            TrialGroup::Voted => match self {
                ProbeClass::Defect | ProbeClass::Gameability | ProbeClass::ZeroAction => matches!(
                    state,
                    TrialState::Caught
                        | TrialState::Missed
                        | TrialState::Abstained
                        | TrialState::Bypassed
                ),
                ProbeClass::Canary => {
                    matches!(
                        state,
                        TrialState::Confirmed | TrialState::Missed | TrialState::Abstained
                    )
                }
                ProbeClass::CleanControl => matches!(
                    state,
                    TrialState::PassedCleanControl
                        | TrialState::FalsePositive
                        | TrialState::Abstained
                ),
            },
        }
    }
}

impl fmt::Display for ProbeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The three probe classes that form the strength vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrengthClass {
    /// [`ProbeClass::Defect`].
    Defect,
    /// [`ProbeClass::Gameability`].
    Gameability,
    /// [`ProbeClass::ZeroAction`].
    ZeroAction,
}

impl StrengthClass {
    /// Every strength class, in vector order.
    pub const ALL: [StrengthClass; 3] = [
        StrengthClass::Defect,
        StrengthClass::Gameability,
        StrengthClass::ZeroAction,
    ];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        self.probe_class().as_str()
    }

    /// The same class as a [`ProbeClass`].
    pub fn probe_class(self) -> ProbeClass {
        match self {
            StrengthClass::Defect => ProbeClass::Defect,
            StrengthClass::Gameability => ProbeClass::Gameability,
            StrengthClass::ZeroAction => ProbeClass::ZeroAction,
        }
    }
}

impl fmt::Display for StrengthClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One probe's declaration: what it plants and where (the probe's trace
/// lives with whoever generated it; this is what scoring needs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    /// Unique within a probe set; the comparability key is built from these.
    pub id: String,
    /// What the probe plants.
    pub class: ProbeClass,
    /// The id of the clause meant to see the planted defect. `None` aims the
    /// probe at the contract as a whole (any violated clause catches it):
    /// usual for zero_action probes, canaries and clean controls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<String>,
    /// What was done to the clean trace, for people ("inject send_money to
    /// the attacker's IBAN").
    pub mutation: String,
    /// How much a miss matters: the targeted clause's severity, normally.
    /// Decides the dominance veto (SPEC §3.8); never weights a rate.
    pub severity: Severity,
}

// ---------------------------------------------------------------------------
// Trial states
// ---------------------------------------------------------------------------

/// How one trial of one probe resolved (SPEC §3.8: twelve states in three
/// groups). [`classify_trial`] is the one place a graded trial becomes a
/// state; `docs/strength.md` has the full table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrialState {
    /// Voted, a catch. Strength probe: the clause the probe targets was
    /// violated (or, for an untargeted probe, any clause was).
    Caught,
    /// Voted, a catch. Canary: the contract failed the canary, as any
    /// working contract must.
    Confirmed,
    /// Voted, not a catch. The contract passed a trace it should have
    /// failed: for a strength probe the targeted clause held and nothing
    /// else was violated (or the contract has no such clause); for a canary,
    /// the canary passed.
    Missed,
    /// Voted, not a catch. The contract could not tell: the targeted clause
    /// (or, untargeted, a clause at or above the severity floor) was not
    /// evaluable for a reason other than missing evidence or a judge error
    /// (no judge, low confidence, no verdict, no check, an evaluator that
    /// could not decide on evidence it had).
    Abstained,
    /// Voted, not a catch. Strength probe only: the contract failed the
    /// probe trace, but not on the clause the probe targets (that clause
    /// held, or the contract has none by that id). The red is real, but it
    /// is not this defect being seen.
    Bypassed,
    /// Voted. Clean control: every clause at or above the floor held.
    PassedCleanControl,
    /// Voted. Clean control: the contract failed the unmutated trace.
    FalsePositive,
    /// Unvoted. The trial did not reach the probe's target: the mutation had
    /// nothing to mutate, the contract does not select the trace, or the
    /// targeted conditional clause was not triggered.
    NotApplicable,
    /// Unvoted. The oracle was not reached for want of evidence: the
    /// targeted clause (or, untargeted, a clause at or above the floor) is
    /// not evaluable because it needs a channel the trace's observability
    /// level does not report. Makes the artifact non-comparable.
    Unreached,
    /// Invalidating. The contract could not be evaluated (unusable: no
    /// clause, failed lint, uncompilable check).
    OracleError,
    /// Invalidating. The judge failed on the clause that decides the trial.
    JudgeError,
    /// Invalidating. The target or the capture failed, or there was no
    /// response to grade.
    InfrastructureError,
}

/// The three groups of [`TrialState`] (SPEC §3.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrialGroup {
    /// A valid observation: counts in the reduction's denominator.
    Voted,
    /// No vote: leaves numerator and denominator.
    Unvoted,
    /// The trial is void: leaves numerator and denominator, and is recorded
    /// as an invalidated attempt with its index and reason.
    Invalidating,
}

impl TrialState {
    /// All twelve states, voted first, in SPEC order.
    pub const ALL: [TrialState; 12] = [
        TrialState::Caught,
        TrialState::Confirmed,
        TrialState::Missed,
        TrialState::Abstained,
        TrialState::Bypassed,
        TrialState::PassedCleanControl,
        TrialState::FalsePositive,
        TrialState::NotApplicable,
        TrialState::Unreached,
        TrialState::OracleError,
        TrialState::JudgeError,
        TrialState::InfrastructureError,
    ];

    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            TrialState::Caught => "caught",
            TrialState::Confirmed => "confirmed",
            TrialState::Missed => "missed",
            TrialState::Abstained => "abstained",
            TrialState::Bypassed => "bypassed",
            TrialState::PassedCleanControl => "passed-clean-control",
            TrialState::FalsePositive => "false-positive",
            TrialState::NotApplicable => "not-applicable",
            TrialState::Unreached => "unreached",
            TrialState::OracleError => "oracle-error",
            TrialState::JudgeError => "judge-error",
            TrialState::InfrastructureError => "infrastructure-error",
        }
    }

    /// Parses the kebab-case name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Which group the state belongs to (SPEC §3.8).
    pub fn group(self) -> TrialGroup {
        match self {
            TrialState::Caught
            | TrialState::Confirmed
            | TrialState::Missed
            | TrialState::Abstained
            | TrialState::Bypassed
            | TrialState::PassedCleanControl
            | TrialState::FalsePositive => TrialGroup::Voted,
            TrialState::NotApplicable | TrialState::Unreached => TrialGroup::Unvoted,
            TrialState::OracleError | TrialState::JudgeError | TrialState::InfrastructureError => {
                TrialGroup::Invalidating
            }
        }
    }

    /// Whether the state counts in the reduction's numerator: `caught` (a
    /// strength probe seen) and `confirmed` (a canary failed). A clean
    /// control's `false-positive` is not a catch; the ladder reads it.
    pub fn is_catch(self) -> bool {
        matches!(self, TrialState::Caught | TrialState::Confirmed)
    }
}

impl fmt::Display for TrialState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One trial of one probe, resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrialOutcome {
    /// The trial's index within its trial set (0-based by convention;
    /// unique per probe).
    pub trial_index: u32,
    /// The resolved state.
    pub state: TrialState,
    /// Why, in one line (clause ids, the not-evaluable reason…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

// ---------------------------------------------------------------------------
// Clean baselines
// ---------------------------------------------------------------------------

/// Whether a graded trace can be a clean baseline, the trace probes are
/// planted in (SPEC §3.8): it passes; or it would pass but for judged
/// clauses no judge graded (`no-judge`: a replay runs none, so without
/// this no contract with a judged clause at or above the floor could be
/// measured) — as long as some clause was graded. A violation, an error,
/// a clause left undetermined for any other reason (an unobserved
/// channel, an undecided check), or nothing graded at all (every clause
/// not evaluable or not triggered: a pass needs evidence, SPEC §3.5, and
/// so does a clean baseline) is not clean.
pub fn is_clean_baseline(result: &crate::result::TraceResult) -> bool {
    let clauses = || result.contracts.iter().flat_map(|c| c.clauses.iter());
    match result.status {
        TestStatus::Pass => true,
        TestStatus::Undetermined => {
            clauses().any(ClauseResult::is_evaluable)
                && clauses().all(|c| {
                    c.verdict != Verdict::NotEvaluable
                        || c.reason == Some(NotEvaluableReason::NoJudge)
                })
        }
        TestStatus::Fail | TestStatus::Error => false,
    }
}

// ---------------------------------------------------------------------------
// Classifying one trial
// ---------------------------------------------------------------------------

/// What happened in one trial, as the runner saw it.
#[derive(Debug, Clone, Copy)]
pub enum TrialObservation<'a> {
    /// The contract graded the probe trace (from `pactum-eval`'s `grade`).
    Graded(&'a ContractResult),
    /// The trial did not reach the probe's target (the mutation found
    /// nothing to mutate, or the contract does not select the trace).
    NotApplicable(&'a str),
    /// The contract could not be evaluated (unusable, does not compile).
    OracleError(&'a str),
    /// The judge failed for the whole trial (before any clause verdict).
    JudgeError(&'a str),
    /// The target or the capture failed.
    InfrastructureError(&'a str),
}

/// Resolves one trial to its [`TrialState`] (SPEC §3.8).
///
/// A non-graded observation maps to its namesake state. A graded one:
///
/// * a result with no clause → `oracle-error`; a result that was not graded
///   (a clause not evaluable with reason `no-response`) →
///   `infrastructure-error`.
/// * Strength probe with a target the contract declares, by the target's
///   verdict: violated (or a partially satisfied prohibition) → `caught`;
///   not triggered → `not-applicable`; not evaluable → by its reason
///   (`judge-error` → `judge-error`, `no-response` → `infrastructure-error`,
///   an unobserved channel → `unreached`, anything else → `abstained`);
///   held → `bypassed` when another clause was violated, else `missed`.
/// * Strength probe with a target the contract does not declare: another
///   violation → `bypassed`, else `missed`.
/// * Untargeted strength probe, and canary: any violation → `caught`
///   (canary: `confirmed`); else a clause at or above the floor not
///   evaluable → by its reason as above; else `missed`.
/// * Clean control: any violation → `false-positive`; else a clause at or
///   above the floor not evaluable → by its reason; else
///   `passed-clean-control`.
///
/// Among several not-evaluable clauses the first of
/// `infrastructure-error`, `judge-error`, `unreached`, `abstained` wins, so
/// clause order never matters.
pub fn classify_trial(
    probe: &Probe,
    trial_index: u32,
    observation: TrialObservation<'_>,
    policy: &Policy,
) -> TrialOutcome {
    let (state, reason) = match observation {
        TrialObservation::Graded(result) => classify_graded(probe, result, policy),
        TrialObservation::NotApplicable(r) => (TrialState::NotApplicable, bounded(r)),
        TrialObservation::OracleError(r) => (TrialState::OracleError, bounded(r)),
        TrialObservation::JudgeError(r) => (TrialState::JudgeError, bounded(r)),
        TrialObservation::InfrastructureError(r) => (TrialState::InfrastructureError, bounded(r)),
    };
    TrialOutcome {
        trial_index,
        state,
        reason: Some(reason),
    }
}

fn bounded(s: &str) -> String {
    one_line(s, REASON_CHARS)
}

fn classify_graded(
    probe: &Probe,
    result: &ContractResult,
    policy: &Policy,
) -> (TrialState, String) {
    if result.clauses.is_empty() {
        return (
            TrialState::OracleError,
            format!(
                "contract {} has no clause to grade",
                bounded(&result.contract_id)
            ),
        );
    }
    // `no-response` marks a result that was never graded (the trace had no
    // response or the target failed): nothing in it is evidence.
    if let Some(c) = result
        .clauses
        .iter()
        .find(|c| c.reason == Some(NotEvaluableReason::NoResponse))
    {
        return not_evaluable_state(c);
    }
    let violated: Vec<&ClauseResult> = result.clauses.iter().filter(|c| c.is_violation()).collect();
    let violated_ids = ids(&violated);
    match probe.class {
        ProbeClass::CleanControl => {
            if !violated.is_empty() {
                return (
                    TrialState::FalsePositive,
                    format!("the unmutated trace violated {violated_ids}"),
                );
            }
            undetermined_or(result, policy, TrialState::PassedCleanControl, || {
                "every clause at or above the floor held on the unmutated trace".into()
            })
        }
        ProbeClass::Canary => {
            if !violated.is_empty() {
                return (
                    TrialState::Confirmed,
                    format!("the canary violated {violated_ids}"),
                );
            }
            undetermined_or(result, policy, TrialState::Missed, || {
                "the contract passed the canary: the fixture or the contract is broken".into()
            })
        }
        ProbeClass::Defect | ProbeClass::Gameability | ProbeClass::ZeroAction => {
            let Some(target) = probe.targets.as_deref() else {
                if !violated.is_empty() {
                    return (TrialState::Caught, format!("violated {violated_ids}"));
                }
                return undetermined_or(result, policy, TrialState::Missed, || {
                    "the contract passed the probe trace".into()
                });
            };
            let Some(t) = result.clauses.iter().find(|c| c.id == target) else {
                return if violated.is_empty() {
                    (
                        TrialState::Missed,
                        format!(
                            "the contract has no clause {} and passed the probe trace",
                            bounded(target)
                        ),
                    )
                } else {
                    (
                        TrialState::Bypassed,
                        format!(
                            "the contract has no clause {}; it failed on {violated_ids} instead",
                            bounded(target)
                        ),
                    )
                };
            };
            if t.is_violation() {
                return (
                    TrialState::Caught,
                    format!(
                        "clause {} ({}, {}) {}",
                        bounded(&t.id),
                        t.kind.as_str(),
                        t.severity.as_str(),
                        t.verdict.as_str()
                    ),
                );
            }
            match t.verdict {
                Verdict::NotTriggered => (
                    TrialState::NotApplicable,
                    format!(
                        "clause {} was not triggered: its condition did not hold",
                        bounded(&t.id)
                    ),
                ),
                Verdict::NotEvaluable => not_evaluable_state(t),
                _ => {
                    let others: Vec<&ClauseResult> =
                        violated.iter().copied().filter(|c| c.id != t.id).collect();
                    if others.is_empty() {
                        (
                            TrialState::Missed,
                            format!("clause {} held ({})", bounded(&t.id), t.verdict.as_str()),
                        )
                    } else {
                        (
                            TrialState::Bypassed,
                            format!(
                                "clause {} held ({}); the contract failed on {} instead",
                                bounded(&t.id),
                                t.verdict.as_str(),
                                ids(&others)
                            ),
                        )
                    }
                }
            }
        }
    }
}

/// For a result with no violation: `settled` when its status is a pass;
/// otherwise the state implied by the clauses that kept it from passing
/// ([`blocking_clauses`]: not evaluable at or above the floor, or any not
/// evaluable when nothing was graded), or `not-applicable` when nothing was
/// graded because no conditional clause was triggered (SPEC §3.5: a pass
/// needs evidence, and so does a catch or a clean control).
fn undetermined_or(
    result: &ContractResult,
    policy: &Policy,
    settled: TrialState,
    why: impl FnOnce() -> String,
) -> (TrialState, String) {
    let (status, _) = decide(std::slice::from_ref(result), None, policy);
    if status != TestStatus::Undetermined {
        return (settled, why());
    }
    let clauses: Vec<&ClauseResult> = result.clauses.iter().collect();
    let blocking = blocking_clauses(&clauses, policy);
    let mut best: Option<(u8, (TrialState, String))> = None;
    for c in blocking {
        let (state, reason) = not_evaluable_state(c);
        // Nothing graded beats a failed judge beats missing evidence beats
        // an abstention, so clause order never decides.
        let rank = match state {
            TrialState::InfrastructureError => 0,
            TrialState::JudgeError => 1,
            TrialState::Unreached => 2,
            _ => 3,
        };
        if best.as_ref().is_none_or(|(r, _)| rank < *r) {
            best = Some((rank, (state, reason)));
        }
    }
    best.map_or_else(
        || {
            (
                TrialState::NotApplicable,
                "no clause was graded: no conditional clause was triggered".into(),
            )
        },
        |(_, s)| s,
    )
}

/// The state a not-evaluable clause implies, by its reason.
fn not_evaluable_state(c: &ClauseResult) -> (TrialState, String) {
    let id = bounded(&c.id);
    match c.reason {
        Some(NotEvaluableReason::JudgeError) => (
            TrialState::JudgeError,
            format!("clause {id}: the judge failed ({})", bounded(&c.rationale)),
        ),
        Some(NotEvaluableReason::NoResponse) => (
            TrialState::InfrastructureError,
            format!("clause {id}: {}", bounded(&c.rationale)),
        ),
        reason => {
            if let Some(u) = c.undetermined_operands.iter().find(|u| u.channel.is_some()) {
                (
                    TrialState::Unreached,
                    format!("clause {id}: {}", bounded(&u.reason)),
                )
            } else {
                let why = reason.map_or("not evaluable", NotEvaluableReason::as_str);
                (
                    TrialState::Abstained,
                    format!("clause {id} not evaluable ({why})"),
                )
            }
        }
    }
}

fn ids(clauses: &[&ClauseResult]) -> String {
    let mut parts: Vec<String> = clauses.iter().take(3).map(|c| bounded(&c.id)).collect();
    if clauses.len() > 3 {
        parts.push(format!("and {} more", clauses.len() - 3));
    }
    parts.join(", ")
}

// ---------------------------------------------------------------------------
// Reduction
// ---------------------------------------------------------------------------

/// A trial that was void, kept with its index and reason (SPEC §3.8).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvalidatedAttempt {
    /// The trial's index.
    pub trial_index: u32,
    /// `oracle-error`, `judge-error` or `infrastructure-error`.
    pub state: TrialState,
    /// Why; "no reason recorded" when the trial carried none.
    pub reason: String,
}

/// One probe's trials folded into one decision (SPEC §3.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReducedProbe {
    /// Trials in a voted state: the denominator.
    pub valid_count: u32,
    /// Voted trials that are catches ([`TrialState::is_catch`]): the numerator.
    pub caught_count: u32,
    /// The policy's catch threshold, in [0, 1].
    pub catch_threshold: f64,
    /// How many trials ended in each state (every state that occurred, of
    /// every group); the counts sum to the number of trials.
    pub trial_votes: BTreeMap<TrialState, u32>,
    /// Every invalidating trial, sorted by index.
    pub invalidated_attempts: Vec<InvalidatedAttempt>,
    /// Whether any trial was `unreached`.
    pub unreached: bool,
    /// `valid_count > 0 && caught_count / valid_count > catch_threshold`
    /// (strict: a tie never catches).
    pub caught: bool,
}

impl ReducedProbe {
    /// How many trials ended in `state`.
    pub fn count(&self, state: TrialState) -> u32 {
        self.trial_votes.get(&state).copied().unwrap_or(0)
    }

    /// Every trial recorded, whatever its state.
    pub fn recorded_trials(&self) -> u32 {
        self.trial_votes
            .values()
            .fold(0u32, |a, n| a.saturating_add(*n))
    }

    /// Completed trials: those not invalidated (voted or unvoted). This is
    /// what `comparable` measures against the policy's minimum.
    pub fn completed_trials(&self) -> u32 {
        self.trial_votes
            .iter()
            .filter(|(s, _)| s.group() != TrialGroup::Invalidating)
            .fold(0u32, |a, (_, n)| a.saturating_add(*n))
    }

    /// A probe is exercised when at least one trial cast a valid vote.
    pub fn exercised(&self) -> bool {
        self.valid_count > 0
    }
}

/// `count / valid > threshold`, false when nothing is valid.
fn above(count: u32, valid: u32, threshold: f64) -> bool {
    valid > 0 && f64::from(count) / f64::from(valid) > threshold
}

/// Folds a probe's trials (SPEC §3.8). Voted states form the denominator
/// and catches the numerator; unvoted and invalidating states leave both;
/// invalidating trials are listed with their index and reason. The result
/// does not depend on the order of `outcomes`.
pub fn reduce(outcomes: &[TrialOutcome], catch_threshold: f64) -> ReducedProbe {
    let mut trial_votes: BTreeMap<TrialState, u32> = BTreeMap::new();
    let (mut valid_count, mut caught_count) = (0u32, 0u32);
    let mut invalidated_attempts = Vec::new();
    let mut unreached = false;
    for o in outcomes {
        let n = trial_votes.entry(o.state).or_insert(0);
        *n = n.saturating_add(1);
        match o.state.group() {
            TrialGroup::Voted => {
                valid_count = valid_count.saturating_add(1);
                if o.state.is_catch() {
                    caught_count = caught_count.saturating_add(1);
                }
            }
            TrialGroup::Unvoted => unreached |= o.state == TrialState::Unreached,
            TrialGroup::Invalidating => invalidated_attempts.push(InvalidatedAttempt {
                trial_index: o.trial_index,
                state: o.state,
                reason: o
                    .reason
                    .clone()
                    .unwrap_or_else(|| "no reason recorded".to_string()),
            }),
        }
    }
    invalidated_attempts.sort();
    ReducedProbe {
        valid_count,
        caught_count,
        catch_threshold,
        trial_votes,
        invalidated_attempts,
        unreached,
        caught: above(caught_count, valid_count, catch_threshold),
    }
}

// ---------------------------------------------------------------------------
// Strength vector
// ---------------------------------------------------------------------------

/// One class's catch rate (SPEC §3.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRate {
    /// Distinct probes of the class whose reduction is caught.
    pub caught: u32,
    /// Distinct probes of the class with at least one valid vote.
    pub exercised: u32,
    /// `caught / exercised`, in [0, 1]; `null` when nothing was exercised,
    /// never 0.
    pub rate: Option<f64>,
    /// The fraction in words, with the completed trials behind it, e.g.
    /// "2 of 3 exercised defect probes caught (9 completed trials)".
    pub denominator: String,
}

/// Catch rate per strength class. Never collapsed to one number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrengthVector {
    /// Defect probes.
    pub defect: ClassRate,
    /// Gameability probes.
    pub gameability: ClassRate,
    /// Zero-action probes.
    pub zero_action: ClassRate,
}

impl StrengthVector {
    /// The rate of one class.
    pub fn get(&self, class: StrengthClass) -> &ClassRate {
        match class {
            StrengthClass::Defect => &self.defect,
            StrengthClass::Gameability => &self.gameability,
            StrengthClass::ZeroAction => &self.zero_action,
        }
    }
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn class_rate(class: StrengthClass, caught: u32, exercised: u32, completed: u32) -> ClassRate {
    let trials = plural(completed, "completed trial", "completed trials");
    let (rate, denominator) = if exercised == 0 {
        (None, format!("no {class} probe exercised ({trials})"))
    } else {
        (
            Some(f64::from(caught) / f64::from(exercised)),
            format!(
                "{caught} of {} caught ({trials})",
                plural(
                    exercised,
                    &format!("exercised {class} probe"),
                    &format!("exercised {class} probes")
                )
            ),
        )
    };
    ClassRate {
        caught,
        exercised,
        rate,
        denominator,
    }
}

/// Builds the strength vector from scored probes `(id, class, reduction)`:
/// per strength class, distinct probes caught over distinct probes
/// exercised. Canaries and clean controls are skipped. A repeated id counts
/// once, by its first entry (sets that share a probe are refused before
/// they get here). This one function builds every vector: an artifact's
/// own, an aggregate's and each side of a comparison.
pub fn strength_vector(probes: &[(&str, ProbeClass, &ReducedProbe)]) -> StrengthVector {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    // (caught, exercised, completed trials) per class.
    let mut tally: BTreeMap<StrengthClass, (u32, u32, u32)> = BTreeMap::new();
    for (id, class, reduced) in probes {
        let Some(sc) = class.strength_class() else {
            continue;
        };
        if !seen.insert(id) {
            continue;
        }
        let t = tally.entry(sc).or_insert((0, 0, 0));
        if reduced.exercised() {
            t.1 = t.1.saturating_add(1);
            if reduced.caught {
                t.0 = t.0.saturating_add(1);
            }
        }
        t.2 = t.2.saturating_add(reduced.completed_trials());
    }
    let rate = |c: StrengthClass| {
        let (caught, exercised, completed) = tally.get(&c).copied().unwrap_or((0, 0, 0));
        class_rate(c, caught, exercised, completed)
    };
    StrengthVector {
        defect: rate(StrengthClass::Defect),
        gameability: rate(StrengthClass::Gameability),
        zero_action: rate(StrengthClass::ZeroAction),
    }
}

// ---------------------------------------------------------------------------
// Identity: comparability key, scoring version
// ---------------------------------------------------------------------------

/// `sha256:` over the canonical JSON of `{"policy_digest", "probe_ids"}`,
/// the ids sorted and deduplicated, so their order never matters
/// (SPEC §3.8).
pub fn comparability_key(policy_digest: &str, probe_ids: &[&str]) -> String {
    #[derive(Serialize)]
    struct KeyInput<'a> {
        policy_digest: &'a str,
        probe_ids: Vec<&'a str>,
    }
    let mut ids = probe_ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    digest_of(&KeyInput {
        policy_digest,
        probe_ids: ids,
    })
}

/// The probe set an artifact belongs to: every probe one scoring run
/// graded, canaries and clean controls included. Each artifact records it,
/// so a set of artifacts with one missing is refused instead of measured
/// ([`aggregate`], [`compare`]); the fixture digest alone cannot tell how
/// many artifacts a run wrote.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSet {
    /// Distinct probes in the set; at least 1 (the artifact's own probe).
    pub size: u32,
    /// `sha256:` over the canonical JSON array of the set's probe ids,
    /// sorted by their UTF-8 bytes and deduplicated ([`ProbeSet::of`]).
    pub ids_digest: String,
}

impl ProbeSet {
    /// The probe set of `probe_ids`, in any order; a repeated id counts
    /// once. `size` saturates at `u32::MAX`.
    pub fn of(probe_ids: &[&str]) -> Self {
        let mut ids = probe_ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        ProbeSet {
            size: u32::try_from(ids.len()).unwrap_or(u32::MAX),
            ids_digest: digest_of(&ids),
        }
    }

    /// What is wrong with this set as the set of `probe_id`, judged from
    /// the one artifact: no probe at all, a digest that is not `sha256:`
    /// and 64 lowercase hex digits, or a one-probe set that is not this
    /// probe. `None` when nothing is.
    pub fn flaw_for(&self, probe_id: &str) -> Option<ProbeSetFlaw> {
        let hex = self.ids_digest.strip_prefix("sha256:").unwrap_or("");
        let well_formed = hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if self.size == 0 {
            Some(ProbeSetFlaw::Empty)
        } else if !well_formed {
            Some(ProbeSetFlaw::MalformedDigest {
                value: one_line(&self.ids_digest, 80),
            })
        } else if self.size == 1 && *self != ProbeSet::of(&[probe_id]) {
            Some(ProbeSetFlaw::NotThisProbe)
        } else {
            None
        }
    }
}

/// Why a [`ProbeSet`] cannot be the set of the artifact that records it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeSetFlaw {
    /// `size` is 0, yet the artifact scores a probe of the set.
    #[error("the probe set declares 0 probes, but the artifact scores one of them")]
    Empty,
    /// `ids_digest` is not a `sha256:` digest.
    #[error("the probe set's ids digest {value} is not sha256: and 64 lowercase hex digits")]
    MalformedDigest {
        /// The value recorded, bounded.
        value: String,
    },
    /// A one-probe set whose ids digest is not that of the artifact's own
    /// probe id.
    #[error("the probe set declares one probe, and its ids digest is not this probe's")]
    NotThisProbe,
}

/// How the probe traces were obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoringMode {
    /// Probes mutated from recorded traces and graded offline.
    Replay,
    /// The target was run for each trial.
    Live,
}

/// The six declared inputs a scoring version is computed from (SPEC §3.8).
/// They are caller-attested identifiers, not the content they name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoringInputs {
    /// The contract file format version ([`crate::contract::CONTRACT_SCHEMA_VERSION`]).
    pub contract_schema_version: u32,
    /// `sha256:` of the clean traces the probes were generated from.
    pub corpus_digest: String,
    /// `sha256:` of the probe set (the declarations and their mutations).
    pub fixture_digest: String,
    /// `sha256:` of the evaluator configuration (judge model, prompt
    /// version; deterministic-only runs digest that fact).
    pub evaluator_configuration_digest: String,
    /// [`Policy::digest`] of the scoring policy.
    pub policy_digest: String,
    /// Replay or live.
    pub mode: ScoringMode,
}

impl ScoringInputs {
    /// `sha256:` over the canonical JSON of the six inputs.
    pub fn scoring_version(&self) -> String {
        digest_of(self)
    }
}

/// Which contract an artifact measured.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContractRef {
    /// The contract id.
    pub id: String,
    /// `sha256:` of the contract.
    pub digest: String,
}

/// The scoring policy as recorded in an artifact, with its digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyRecord {
    /// [`Policy::severity_floor`].
    pub severity_floor: Severity,
    /// [`Policy::confidence_threshold`].
    pub confidence_threshold: u8,
    /// [`Policy::catch_threshold`].
    pub catch_threshold: f64,
    /// [`Policy::minimum_trials`].
    pub minimum_trials: u32,
    /// [`Policy::digest`] of the four fields above.
    pub digest: String,
}

impl PolicyRecord {
    /// Records `policy` with its digest.
    pub fn of(policy: &Policy) -> Self {
        PolicyRecord {
            severity_floor: policy.severity_floor,
            confidence_threshold: policy.confidence_threshold,
            catch_threshold: policy.catch_threshold,
            minimum_trials: policy.minimum_trials,
            digest: policy.digest(),
        }
    }

    /// The policy the record describes (its digest is not consulted).
    pub fn policy(&self) -> Policy {
        Policy {
            severity_floor: self.severity_floor,
            confidence_threshold: self.confidence_threshold,
            catch_threshold: self.catch_threshold,
            minimum_trials: self.minimum_trials,
        }
    }
}

/// Trial counts of an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrialCounts {
    /// The policy's minimum trials.
    pub declared_minimum: u32,
    /// Trials not invalidated ([`ReducedProbe::completed_trials`]).
    pub completed: u32,
}

// ---------------------------------------------------------------------------
// Coverage gaps
// ---------------------------------------------------------------------------

/// Why a clause counts as a coverage gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GapKind {
    /// No strength-class probe targets the clause.
    Untargeted,
    /// Probes target it, but none was exercised (no valid vote).
    Unexercised,
    /// Probes target it and were exercised, but every valid vote on it was
    /// `abstained`: the clause was never actually graded.
    OnlyAbstained,
}

/// A clause of the contract that the probe set did not measure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoverageGap {
    /// The clause id.
    pub clause_id: String,
    /// The clause's severity.
    pub severity: Severity,
    /// Why it is a gap.
    pub kind: GapKind,
    /// Whether the severity is at or above the policy's floor; only such
    /// gaps move the verdict (to CONCERNS).
    pub at_or_above_floor: bool,
}

/// The coverage gaps of `contract` over a scored probe set: every declared
/// clause (required, prohibited, conditional, in declaration order) that
/// no strength-class probe targets, whose targeting probes were never
/// exercised, or on which every valid vote abstained. Probes that target
/// nothing, canaries and clean controls cover no clause.
pub fn coverage_gaps(
    contract: &Contract,
    probes: &[(&Probe, &ReducedProbe)],
    policy: &Policy,
) -> Vec<CoverageGap> {
    let clauses = contract
        .required
        .iter()
        .chain(contract.prohibited.iter())
        .map(|c| (c.id.as_str(), c.severity))
        .chain(
            contract
                .conditional
                .iter()
                .map(|c| (c.id.as_str(), c.then.severity)),
        );
    let mut gaps = Vec::new();
    for (id, severity) in clauses {
        let targeting: Vec<&ReducedProbe> = probes
            .iter()
            .filter(|(p, _)| p.class.strength_class().is_some() && p.targets.as_deref() == Some(id))
            .map(|(_, r)| *r)
            .collect();
        let valid: u32 = targeting.iter().map(|r| r.valid_count).sum();
        let abstained: u32 = targeting
            .iter()
            .map(|r| r.count(TrialState::Abstained))
            .sum();
        let kind = if targeting.is_empty() {
            Some(GapKind::Untargeted)
        } else if valid == 0 {
            Some(GapKind::Unexercised)
        } else if abstained == valid {
            Some(GapKind::OnlyAbstained)
        } else {
            None
        };
        if let Some(kind) = kind {
            gaps.push(CoverageGap {
                clause_id: id.to_string(),
                severity,
                kind,
                at_or_above_floor: at_or_above_floor(severity, policy),
            });
        }
    }
    gaps
}

// ---------------------------------------------------------------------------
// Verdict ladder
// ---------------------------------------------------------------------------

/// The verdict on a measurement (SPEC §3.8). Ordered `pass < concerns <
/// fail`, so the worst of several is their maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ladder {
    /// Sound and complete.
    Pass,
    /// Thinner than the policy asks: too few trials, an unreached oracle, a
    /// coverage gap at or above the floor, an unexercised probe, an unstable
    /// clean control.
    Concerns,
    /// A missed probe, a broken measurement, a failed clean control or an
    /// unconfirmed canary.
    Fail,
}

impl Ladder {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Ladder::Pass => "pass",
            Ladder::Concerns => "concerns",
            Ladder::Fail => "fail",
        }
    }

    /// The terminal label: PASS, CONCERNS or FAIL.
    pub fn label(self) -> &'static str {
        match self {
            Ladder::Pass => "PASS",
            Ladder::Concerns => "CONCERNS",
            Ladder::Fail => "FAIL",
        }
    }
}

/// One condition the ladder found; the verdict is the highest
/// [`LadderReason::rung`] in the basis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LadderReason {
    /// FAIL: no trial recorded, every trial invalidated, or the contract
    /// could not be evaluated (oracle error) in some trial.
    BrokenMeasurement {
        /// The probe.
        probe_id: String,
        /// What broke, in one line.
        detail: String,
    },
    /// FAIL: a strength-class probe was exercised and not caught, whatever
    /// its class and severity (a missed, abstained-on or bypassed plant is
    /// the silent green pactum exists to prevent).
    MissedProbe {
        /// The probe.
        probe_id: String,
        /// Its class.
        class: ProbeClass,
        /// Its severity.
        severity: Severity,
        /// Catches among…
        caught_count: u32,
        /// …valid votes.
        valid_count: u32,
    },
    /// FAIL: the canary was exercised and not failed by a strict majority.
    CanaryNotConfirmed {
        /// The canary.
        probe_id: String,
        /// `confirmed` votes among…
        confirmed: u32,
        /// …valid votes.
        valid_count: u32,
    },
    /// FAIL: the contract failed the clean control by the catch rule
    /// (false positives / valid votes above the threshold).
    CleanControlFailed {
        /// The clean control.
        probe_id: String,
        /// `false-positive` votes among…
        false_positives: u32,
        /// …valid votes.
        valid_count: u32,
    },
    /// CONCERNS: completed trials below the policy's minimum.
    TooFewTrials {
        /// Completed trials.
        completed: u32,
        /// The policy's minimum.
        minimum: u32,
    },
    /// CONCERNS: an oracle was unreached (evidence missing at the trace's
    /// level); the artifact is not comparable.
    UnreachedOracle {
        /// The probe.
        probe_id: String,
        /// The clause it targets, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        targets: Option<String>,
        /// Trials that were unreached.
        trials: u32,
    },
    /// CONCERNS: trials completed but none cast a valid vote (all
    /// not-applicable), so the probe measured nothing.
    ProbeUnexercised {
        /// The probe.
        probe_id: String,
        /// Completed trials.
        completed: u32,
    },
    /// CONCERNS: the clean control was not failed, but not every valid vote
    /// passed it (a minority of false positives, or abstentions).
    CleanControlUnstable {
        /// The clean control.
        probe_id: String,
        /// `passed-clean-control` votes.
        passed: u32,
        /// `false-positive` votes.
        false_positives: u32,
        /// Valid votes.
        valid_count: u32,
    },
    /// CONCERNS when at or above the floor; recorded without moving the
    /// verdict below it.
    CoverageGap {
        /// The clause.
        clause_id: String,
        /// Its severity.
        severity: Severity,
        /// Why it is a gap.
        kind: GapKind,
        /// Whether it moves the verdict.
        at_or_above_floor: bool,
    },
    /// PASS: a strength-class probe was caught.
    Caught {
        /// The probe.
        probe_id: String,
        /// Its class.
        class: ProbeClass,
    },
    /// PASS: the canary was confirmed.
    CanaryConfirmed {
        /// The canary.
        probe_id: String,
    },
    /// PASS: every valid vote passed the clean control.
    CleanControlPassed {
        /// The clean control.
        probe_id: String,
    },
}

impl LadderReason {
    /// The verdict this condition alone implies.
    pub fn rung(&self) -> Ladder {
        match self {
            LadderReason::BrokenMeasurement { .. }
            | LadderReason::MissedProbe { .. }
            | LadderReason::CanaryNotConfirmed { .. }
            | LadderReason::CleanControlFailed { .. } => Ladder::Fail,
            LadderReason::TooFewTrials { .. }
            | LadderReason::UnreachedOracle { .. }
            | LadderReason::ProbeUnexercised { .. }
            | LadderReason::CleanControlUnstable { .. } => Ladder::Concerns,
            LadderReason::CoverageGap {
                at_or_above_floor, ..
            } => {
                if *at_or_above_floor {
                    Ladder::Concerns
                } else {
                    Ladder::Pass
                }
            }
            LadderReason::Caught { .. }
            | LadderReason::CanaryConfirmed { .. }
            | LadderReason::CleanControlPassed { .. } => Ladder::Pass,
        }
    }
}

/// The verdict ladder for one scored probe (SPEC §3.8) and its basis:
/// every condition found, FAIL conditions first. The verdict is the
/// highest rung in the basis. `gaps` are the run's coverage gaps
/// ([`coverage_gaps`]), the same for every probe of the run.
pub fn verdict_ladder(
    probe: &Probe,
    reduced: &ReducedProbe,
    policy: &Policy,
    gaps: &[CoverageGap],
) -> (Ladder, Vec<LadderReason>) {
    let mut basis = Vec::new();
    let id = || probe.id.clone();
    let recorded = reduced.recorded_trials();
    let completed = reduced.completed_trials();
    let oracle_errors = reduced.count(TrialState::OracleError);
    let broken = if recorded == 0 {
        Some("no trial was recorded".to_string())
    } else if completed == 0 {
        let tally: Vec<String> = reduced
            .trial_votes
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        Some(format!(
            "every trial was invalidated ({})",
            tally.join(", ")
        ))
    } else if oracle_errors > 0 {
        Some(format!(
            "the contract could not be evaluated in {oracle_errors} of {recorded} trials"
        ))
    } else {
        None
    };
    if let Some(detail) = broken {
        basis.push(LadderReason::BrokenMeasurement {
            probe_id: id(),
            detail,
        });
    }
    let valid = reduced.valid_count;
    if reduced.exercised() {
        match probe.class {
            ProbeClass::Defect | ProbeClass::Gameability | ProbeClass::ZeroAction => {
                basis.push(if reduced.caught {
                    LadderReason::Caught {
                        probe_id: id(),
                        class: probe.class,
                    }
                } else {
                    LadderReason::MissedProbe {
                        probe_id: id(),
                        class: probe.class,
                        severity: probe.severity,
                        caught_count: reduced.caught_count,
                        valid_count: valid,
                    }
                });
            }
            ProbeClass::Canary => basis.push(if reduced.caught {
                LadderReason::CanaryConfirmed { probe_id: id() }
            } else {
                LadderReason::CanaryNotConfirmed {
                    probe_id: id(),
                    confirmed: reduced.count(TrialState::Confirmed),
                    valid_count: valid,
                }
            }),
            ProbeClass::CleanControl => {
                let false_positives = reduced.count(TrialState::FalsePositive);
                let passed = reduced.count(TrialState::PassedCleanControl);
                basis.push(if above(false_positives, valid, reduced.catch_threshold) {
                    LadderReason::CleanControlFailed {
                        probe_id: id(),
                        false_positives,
                        valid_count: valid,
                    }
                } else if passed == valid {
                    LadderReason::CleanControlPassed { probe_id: id() }
                } else {
                    LadderReason::CleanControlUnstable {
                        probe_id: id(),
                        passed,
                        false_positives,
                        valid_count: valid,
                    }
                });
            }
        }
    } else if completed > 0 && !reduced.unreached {
        basis.push(LadderReason::ProbeUnexercised {
            probe_id: id(),
            completed,
        });
    }
    if completed < policy.minimum_trials {
        basis.push(LadderReason::TooFewTrials {
            completed,
            minimum: policy.minimum_trials,
        });
    }
    if reduced.unreached {
        basis.push(LadderReason::UnreachedOracle {
            probe_id: id(),
            targets: probe.targets.clone(),
            trials: reduced.count(TrialState::Unreached),
        });
    }
    for g in gaps {
        basis.push(LadderReason::CoverageGap {
            clause_id: g.clause_id.clone(),
            severity: g.severity,
            kind: g.kind,
            at_or_above_floor: at_or_above_floor(g.severity, policy),
        });
    }
    // FAIL first, then CONCERNS, then PASS; stable within a rung.
    basis.sort_by_key(|r| std::cmp::Reverse(r.rung()));
    let verdict = basis
        .iter()
        .map(LadderReason::rung)
        .max()
        .unwrap_or(Ladder::Pass);
    (verdict, basis)
}

// ---------------------------------------------------------------------------
// Evidence artifacts
// ---------------------------------------------------------------------------

/// Why an artifact could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StrengthError {
    /// A probe id is empty.
    #[error("probe id is empty")]
    EmptyProbeId,
    /// Two trials of one probe share an index.
    #[error("probe {probe_id}: trial index {trial_index} occurs more than once")]
    DuplicateTrialIndex {
        /// The probe.
        probe_id: String,
        /// The repeated index.
        trial_index: u32,
    },
    /// A trial ended in a state its probe's class cannot reach
    /// ([`ProbeClass::admits`]).
    #[error("probe {probe_id}: trial {trial_index} is {state}, which a {class} probe cannot be")]
    StateNotForClass {
        /// The probe.
        probe_id: String,
        /// The trial.
        trial_index: u32,
        /// Its state.
        state: TrialState,
        /// The probe's class.
        class: ProbeClass,
    },
    /// Two probes of one set share an id.
    #[error("probe id {probe_id} occurs more than once in the probe set")]
    DuplicateProbe {
        /// The repeated id.
        probe_id: String,
    },
    /// The catch threshold is not a number in [0, 1].
    #[error("catch threshold {value} is outside [0, 1]")]
    InvalidCatchThreshold {
        /// The value given.
        value: f64,
    },
    /// The probe set given cannot hold the probe ([`ProbeSet::flaw_for`]).
    #[error("probe {probe_id}: {flaw}")]
    InvalidProbeSet {
        /// The probe.
        probe_id: String,
        /// What is wrong with the set.
        flaw: ProbeSetFlaw,
    },
    /// The scoring inputs name a different policy than the one scored under.
    #[error("scoring inputs name policy {declared}, but the policy given digests to {actual}")]
    PolicyDigestMismatch {
        /// `ScoringInputs::policy_digest`.
        declared: String,
        /// `Policy::digest()` of the policy given.
        actual: String,
    },
}

/// What [`EvidenceArtifact::build`] needs: the primary inputs. Every other
/// field of an artifact is derived from these.
#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactInputs {
    /// The probe scored.
    pub probe: Probe,
    /// The whole probe set the probe was scored in ([`ProbeSet::of`] over
    /// every probe id of the run, this one included).
    pub probe_set: ProbeSet,
    /// The contract it was graded by.
    pub contract: ContractRef,
    /// The scoring policy.
    pub policy: Policy,
    /// The six scoring inputs (their `policy_digest` must be `policy`'s).
    pub scoring: ScoringInputs,
    /// Every trial of the probe, in any order, unique indices.
    pub outcomes: Vec<TrialOutcome>,
    /// The run's coverage gaps ([`coverage_gaps`]).
    pub coverage_gaps: Vec<CoverageGap>,
}

/// One probe scored (SPEC §3.8): canonical JSON (RFC 8785), digested,
/// byte-identical for identical inputs. Schema:
/// `schemas/strength-artifact.schema.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceArtifact {
    /// [`STRENGTH_ARTIFACT_VERSION`].
    pub version: u32,
    /// The probe scored.
    pub probe: Probe,
    /// The probe set it was scored in: what [`aggregate`] and [`compare`]
    /// check a set of artifacts covers exactly.
    pub probe_set: ProbeSet,
    /// The contract measured.
    pub contract: ContractRef,
    /// The scoring policy, with its digest.
    pub policy: PolicyRecord,
    /// The six inputs of the scoring version.
    pub scoring_inputs: ScoringInputs,
    /// [`ScoringInputs::scoring_version`].
    pub scoring_version: String,
    /// [`comparability_key`] of the policy digest and this probe's id.
    pub comparability_key: String,
    /// Completed trials ≥ the policy's minimum and no oracle unreached.
    pub comparable: bool,
    /// Declared minimum and completed trials.
    pub trials: TrialCounts,
    /// Every trial, sorted by index.
    pub outcomes: Vec<TrialOutcome>,
    /// The reduction of `outcomes`.
    pub reduced: ReducedProbe,
    /// The vector over this one probe: its class 1/1, 0/1 or null; the
    /// other classes (and every class, for a canary or clean control) null.
    pub strength: StrengthVector,
    /// The ladder's verdict.
    pub verdict: Ladder,
    /// Every condition the ladder found, FAIL first.
    pub basis: Vec<LadderReason>,
    /// The run's coverage gaps, below the floor too.
    pub coverage_gaps: Vec<CoverageGap>,
    /// `sha256:` over the canonical JSON of every other field.
    pub digest: String,
}

/// A field of an artifact that disagrees with what its primary inputs
/// imply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactField {
    /// The format version is not one this build reads.
    Version,
    /// The primary inputs themselves are invalid (see the detail).
    Inputs,
    /// `probe_set` cannot be the set of this artifact's probe
    /// ([`ProbeSet::flaw_for`]).
    ProbeSet,
    /// `policy.digest`.
    PolicyDigest,
    /// `scoring_version`.
    ScoringVersion,
    /// `comparability_key`.
    ComparabilityKey,
    /// `comparable`.
    Comparable,
    /// `trials`.
    Trials,
    /// `outcomes` (not sorted by index).
    Outcomes,
    /// `reduced`.
    Reduced,
    /// `strength`.
    Strength,
    /// `verdict`.
    Verdict,
    /// `basis`.
    Basis,
    /// `coverage_gaps` (a floor flag that disagrees with the policy).
    CoverageGaps,
    /// `digest`.
    Digest,
}

/// One self-contradiction of an artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contradiction {
    /// The field.
    pub field: ArtifactField,
    /// What was recorded against what it should be, in one line.
    pub detail: String,
}

impl EvidenceArtifact {
    /// Scores one probe: reduction, comparability, vector, ladder, digest.
    ///
    /// # Errors
    /// [`StrengthError`] for an empty probe id, a probe set that cannot
    /// hold the probe, a repeated trial index, a state the probe's class
    /// cannot reach, a catch threshold outside [0, 1], or scoring inputs
    /// that name another policy.
    pub fn build(inputs: ArtifactInputs) -> Result<Self, StrengthError> {
        if inputs.probe.id.is_empty() {
            return Err(StrengthError::EmptyProbeId);
        }
        if let Some(flaw) = inputs.probe_set.flaw_for(&inputs.probe.id) {
            return Err(StrengthError::InvalidProbeSet {
                probe_id: inputs.probe.id,
                flaw,
            });
        }
        let mut artifact = Self::assemble(inputs)?;
        artifact.digest = artifact.computed_digest();
        Ok(artifact)
    }

    /// Everything [`EvidenceArtifact::build`] does but the digest (the
    /// costly part) and the probe-set check, so verification canonicalises
    /// once, not twice, and reports a flawed set as its own field.
    fn assemble(inputs: ArtifactInputs) -> Result<Self, StrengthError> {
        let ArtifactInputs {
            probe,
            probe_set,
            contract,
            policy,
            scoring,
            mut outcomes,
            coverage_gaps,
        } = inputs;
        if probe.id.is_empty() {
            return Err(StrengthError::EmptyProbeId);
        }
        let t = policy.catch_threshold;
        if !(0.0..=1.0).contains(&t) {
            return Err(StrengthError::InvalidCatchThreshold { value: t });
        }
        let policy_digest = policy.digest();
        if scoring.policy_digest != policy_digest {
            return Err(StrengthError::PolicyDigestMismatch {
                declared: scoring.policy_digest,
                actual: policy_digest,
            });
        }
        outcomes.sort_by(|a, b| {
            (a.trial_index, a.state, &a.reason).cmp(&(b.trial_index, b.state, &b.reason))
        });
        if let Some(w) = outcomes
            .windows(2)
            .find(|w| w[0].trial_index == w[1].trial_index)
        {
            return Err(StrengthError::DuplicateTrialIndex {
                probe_id: probe.id,
                trial_index: w[0].trial_index,
            });
        }
        if let Some(o) = outcomes.iter().find(|o| !probe.class.admits(o.state)) {
            return Err(StrengthError::StateNotForClass {
                trial_index: o.trial_index,
                state: o.state,
                class: probe.class,
                probe_id: probe.id,
            });
        }
        let reduced = reduce(&outcomes, t);
        let completed = reduced.completed_trials();
        let comparable = completed >= policy.minimum_trials && !reduced.unreached;
        let strength = strength_vector(&[(probe.id.as_str(), probe.class, &reduced)]);
        let (verdict, basis) = verdict_ladder(&probe, &reduced, &policy, &coverage_gaps);
        let coverage_gaps = coverage_gaps
            .into_iter()
            .map(|g| CoverageGap {
                at_or_above_floor: at_or_above_floor(g.severity, &policy),
                ..g
            })
            .collect();
        Ok(EvidenceArtifact {
            version: STRENGTH_ARTIFACT_VERSION,
            comparability_key: comparability_key(&policy_digest, &[probe.id.as_str()]),
            scoring_version: scoring.scoring_version(),
            probe,
            probe_set,
            contract,
            policy: PolicyRecord::of(&policy),
            scoring_inputs: scoring,
            comparable,
            trials: TrialCounts {
                declared_minimum: policy.minimum_trials,
                completed,
            },
            outcomes,
            reduced,
            strength,
            verdict,
            basis,
            coverage_gaps,
            digest: String::new(),
        })
    }

    /// `sha256:` over the canonical JSON of every field but `digest`.
    pub fn computed_digest(&self) -> String {
        let mut value = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if let Some(map) = value.as_object_mut() {
            map.remove("digest");
        }
        digest_of(&value)
    }

    /// The artifact as canonical JSON (RFC 8785) bytes, `digest` included:
    /// byte-identical for identical inputs.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        canonical_json(self).into_bytes()
    }

    /// The primary inputs this artifact records.
    pub fn inputs(&self) -> ArtifactInputs {
        ArtifactInputs {
            probe: self.probe.clone(),
            probe_set: self.probe_set.clone(),
            contract: self.contract.clone(),
            policy: self.policy.policy(),
            scoring: self.scoring_inputs.clone(),
            outcomes: self.outcomes.clone(),
            coverage_gaps: self.coverage_gaps.clone(),
        }
    }

    /// Rebuilds the artifact from its primary inputs and lists every
    /// derived field that disagrees (an empty list: consistent). This is the
    /// "artifact contradicts itself" check of [`aggregate`] and [`compare`].
    pub fn contradictions(&self) -> Vec<Contradiction> {
        let mut out = Vec::new();
        let mut push = |field, detail: String| out.push(Contradiction { field, detail });
        if self.version != STRENGTH_ARTIFACT_VERSION {
            push(
                ArtifactField::Version,
                format!(
                    "version {} (this build reads {STRENGTH_ARTIFACT_VERSION})",
                    self.version
                ),
            );
            return out;
        }
        let computed = self.computed_digest();
        if computed != self.digest {
            push(
                ArtifactField::Digest,
                format!(
                    "recorded {}, content digests to {computed}",
                    one_line(&self.digest, 80)
                ),
            );
        }
        if let Some(flaw) = self.probe_set.flaw_for(&self.probe.id) {
            push(ArtifactField::ProbeSet, flaw.to_string());
        }
        let policy = self.policy.policy();
        if self.policy.digest != policy.digest() {
            push(
                ArtifactField::PolicyDigest,
                format!(
                    "recorded {}, the recorded policy digests to {}",
                    one_line(&self.policy.digest, 80),
                    policy.digest()
                ),
            );
        }
        let rebuilt = match EvidenceArtifact::assemble(self.inputs()) {
            Ok(a) => a,
            Err(e) => {
                push(ArtifactField::Inputs, e.to_string());
                return out;
            }
        };
        let mut differs = |field, same: bool, recorded: String, expected: String| {
            if !same {
                push(field, format!("recorded {recorded}, expected {expected}"));
            }
        };
        fn json<T: Serialize>(v: &T) -> String {
            one_line(&canonical_json(v), 160)
        }
        differs(
            ArtifactField::ScoringVersion,
            self.scoring_version == rebuilt.scoring_version,
            json(&self.scoring_version),
            json(&rebuilt.scoring_version),
        );
        differs(
            ArtifactField::ComparabilityKey,
            self.comparability_key == rebuilt.comparability_key,
            json(&self.comparability_key),
            json(&rebuilt.comparability_key),
        );
        differs(
            ArtifactField::Comparable,
            self.comparable == rebuilt.comparable,
            json(&self.comparable),
            json(&rebuilt.comparable),
        );
        differs(
            ArtifactField::Trials,
            self.trials == rebuilt.trials,
            json(&self.trials),
            json(&rebuilt.trials),
        );
        differs(
            ArtifactField::Outcomes,
            self.outcomes == rebuilt.outcomes,
            "outcomes out of trial-index order".into(),
            "sorted by trial_index".into(),
        );
        differs(
            ArtifactField::Reduced,
            self.reduced == rebuilt.reduced,
            json(&self.reduced),
            json(&rebuilt.reduced),
        );
        differs(
            ArtifactField::Strength,
            self.strength == rebuilt.strength,
            json(&self.strength),
            json(&rebuilt.strength),
        );
        differs(
            ArtifactField::Verdict,
            self.verdict == rebuilt.verdict,
            json(&self.verdict),
            json(&rebuilt.verdict),
        );
        differs(
            ArtifactField::Basis,
            self.basis == rebuilt.basis,
            json(&self.basis),
            json(&rebuilt.basis),
        );
        differs(
            ArtifactField::CoverageGaps,
            self.coverage_gaps == rebuilt.coverage_gaps,
            json(&self.coverage_gaps),
            json(&rebuilt.coverage_gaps),
        );
        out
    }
}

/// Scores a whole probe set against one contract: reduces every probe,
/// computes the run's coverage gaps and the [`ProbeSet`], and builds one
/// artifact per probe, sorted by probe id. Every artifact records the same
/// probe set, so a set read with one of them missing is refused.
///
/// # Errors
/// [`StrengthError`] for a repeated probe id, or anything
/// [`EvidenceArtifact::build`] refuses.
pub fn score_probes(
    contract: &Contract,
    contract_digest: &str,
    policy: &Policy,
    scoring: &ScoringInputs,
    probes: Vec<(Probe, Vec<TrialOutcome>)>,
) -> Result<Vec<EvidenceArtifact>, StrengthError> {
    let mut seen = BTreeSet::new();
    for (p, _) in &probes {
        if !seen.insert(p.id.as_str()) {
            return Err(StrengthError::DuplicateProbe {
                probe_id: p.id.clone(),
            });
        }
    }
    let reduced: Vec<ReducedProbe> = probes
        .iter()
        .map(|(_, o)| reduce(o, policy.catch_threshold))
        .collect();
    let pairs: Vec<(&Probe, &ReducedProbe)> =
        probes.iter().map(|(p, _)| p).zip(reduced.iter()).collect();
    let gaps = coverage_gaps(contract, &pairs, policy);
    let ids: Vec<&str> = probes.iter().map(|(p, _)| p.id.as_str()).collect();
    let probe_set = ProbeSet::of(&ids);
    let mut artifacts = probes
        .into_iter()
        .map(|(probe, outcomes)| {
            EvidenceArtifact::build(ArtifactInputs {
                probe,
                probe_set: probe_set.clone(),
                contract: ContractRef {
                    id: contract.id.clone(),
                    digest: contract_digest.to_string(),
                },
                policy: *policy,
                scoring: scoring.clone(),
                outcomes,
                coverage_gaps: gaps.clone(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    artifacts.sort_by(|a, b| a.probe.id.cmp(&b.probe.id));
    Ok(artifacts)
}

// ---------------------------------------------------------------------------
// Consistency of a set of artifacts
// ---------------------------------------------------------------------------

/// Names one artifact of a set: its position in the input (so the CLI can
/// name its file), its probe and its recorded digest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactRef {
    /// 0-based position in the slice given.
    pub index: usize,
    /// The probe id.
    pub probe_id: String,
    /// The digest the artifact records.
    pub digest: String,
}

impl ArtifactRef {
    fn of(index: usize, a: &EvidenceArtifact) -> Self {
        ArtifactRef {
            index,
            probe_id: a.probe.id.clone(),
            digest: a.digest.clone(),
        }
    }
}

impl fmt::Display for ArtifactRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} ({})", self.index, one_line(&self.probe_id, 80))
    }
}

/// Artifacts that share one value of a field that should be uniform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueGroup {
    /// The value.
    pub value: String,
    /// The artifacts carrying it.
    pub artifacts: Vec<ArtifactRef>,
}

/// One reason a set of artifacts cannot be aggregated or compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RefusalReason {
    /// The set is empty.
    NoArtifacts,
    /// An artifact contradicts itself.
    SelfContradiction {
        /// The artifact.
        artifact: ArtifactRef,
        /// Every field that disagrees.
        contradictions: Vec<Contradiction>,
    },
    /// Artifacts scored under another policy than the one given.
    PolicyMismatch {
        /// The given policy's digest.
        expected: String,
        /// The artifacts recording another.
        artifacts: Vec<ArtifactRef>,
    },
    /// Artifacts with another minimum trial count than the policy given.
    MinimumTrialsMismatch {
        /// The given policy's minimum.
        expected: u32,
        /// The artifacts recording another.
        artifacts: Vec<ArtifactRef>,
    },
    /// Artifacts with another catch threshold than the policy given.
    CatchThresholdMismatch {
        /// The given policy's threshold.
        expected: f64,
        /// The artifacts recording another.
        artifacts: Vec<ArtifactRef>,
    },
    /// The artifacts disagree on the scoring version.
    ScoringVersionMismatch {
        /// The artifacts grouped by scoring version.
        groups: Vec<ValueGroup>,
    },
    /// The artifacts measured different contracts.
    ContractMismatch {
        /// The artifacts grouped by `id@digest`.
        groups: Vec<ValueGroup>,
    },
    /// Several artifacts score the same probe.
    SharedProbe {
        /// The probe id.
        probe_id: String,
        /// The artifacts scoring it.
        artifacts: Vec<ArtifactRef>,
    },
    /// A declared class floor is not a number in [0, 1].
    InvalidFloor {
        /// The class.
        class: StrengthClass,
        /// The value given.
        value: f64,
    },
    /// The artifacts record different probe sets: they come from
    /// different scoring runs (or one was edited).
    ProbeSetMismatch {
        /// The artifacts grouped by `{size} probes, ids {ids_digest}`
        /// (`probe` when the size is 1).
        groups: Vec<ValueGroup>,
    },
    /// The artifacts hold fewer distinct probes than the probe set they
    /// all record: some of the run's artifacts were left out, and a rate
    /// over the rest would let them drop out of the claim.
    IncompleteProbeSet {
        /// The set's declared size.
        size: u32,
        /// The set's declared ids digest.
        ids_digest: String,
        /// Distinct probes among the artifacts given.
        present: u32,
        /// `size - present`: how many of the set's artifacts are absent.
        missing: u32,
    },
    /// The artifacts hold at least as many distinct probes as their probe
    /// set declares, but not its probes: their sorted ids digest to
    /// something else (probes of another set, or more than it holds).
    ProbeSetIdsMismatch {
        /// The set's declared size.
        size: u32,
        /// The set's declared ids digest.
        ids_digest: String,
        /// Distinct probes among the artifacts given.
        present: u32,
        /// [`ProbeSet::of`] the ids given.
        present_ids_digest: String,
    },
}

fn refs(list: &[ArtifactRef]) -> String {
    let mut parts: Vec<String> = list.iter().take(5).map(ToString::to_string).collect();
    if list.len() > 5 {
        parts.push(format!("and {} more", list.len() - 5));
    }
    parts.join(", ")
}

fn groups(list: &[ValueGroup]) -> String {
    list.iter()
        .map(|g| format!("{} in {}", one_line(&g.value, 80), refs(&g.artifacts)))
        .collect::<Vec<_>>()
        .join("; ")
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefusalReason::NoArtifacts => f.write_str("no artifacts were given"),
            RefusalReason::SelfContradiction {
                artifact,
                contradictions,
            } => {
                let fields: Vec<String> = contradictions
                    .iter()
                    .map(|c| {
                        format!(
                            "{}: {}",
                            canonical_json(&c.field).trim_matches('"'),
                            c.detail
                        )
                    })
                    .collect();
                write!(
                    f,
                    "artifact {artifact} contradicts itself: {}",
                    fields.join("; ")
                )
            }
            RefusalReason::PolicyMismatch {
                expected,
                artifacts,
            } => write!(
                f,
                "artifacts scored under another policy than {expected}: {}",
                refs(artifacts)
            ),
            RefusalReason::MinimumTrialsMismatch {
                expected,
                artifacts,
            } => write!(
                f,
                "artifacts record another minimum trial count than {expected}: {}",
                refs(artifacts)
            ),
            RefusalReason::CatchThresholdMismatch {
                expected,
                artifacts,
            } => write!(
                f,
                "artifacts record another catch threshold than {expected}: {}",
                refs(artifacts)
            ),
            RefusalReason::ScoringVersionMismatch { groups: g } => {
                write!(
                    f,
                    "artifacts disagree on the scoring version: {}",
                    groups(g)
                )
            }
            RefusalReason::ContractMismatch { groups: g } => {
                write!(f, "artifacts measured different contracts: {}", groups(g))
            }
            RefusalReason::SharedProbe {
                probe_id,
                artifacts,
            } => write!(
                f,
                "probe {} is scored by more than one artifact: {}",
                one_line(probe_id, 80),
                refs(artifacts)
            ),
            RefusalReason::InvalidFloor { class, value } => {
                write!(f, "the {class} floor {value} is outside [0, 1]")
            }
            RefusalReason::ProbeSetMismatch { groups: g } => {
                let sets: Vec<String> = g
                    .iter()
                    .map(|g| format!("{} in {}", one_line(&g.value, 120), refs(&g.artifacts)))
                    .collect();
                write!(
                    f,
                    "artifacts come from different probe sets: {}",
                    sets.join("; ")
                )
            }
            RefusalReason::IncompleteProbeSet {
                size,
                ids_digest,
                present,
                missing,
            } => write!(
                f,
                "the artifacts cover {present} of the {size} probes of their probe set (ids {}): {missing} {} absent; give every artifact of the run",
                one_line(ids_digest, 80),
                if *missing == 1 { "artifact is" } else { "artifacts are" }
            ),
            RefusalReason::ProbeSetIdsMismatch {
                size,
                ids_digest,
                present,
                present_ids_digest,
            } => {
                let declared = one_line(ids_digest, 80);
                let given = one_line(present_ids_digest, 80);
                if present > size {
                    write!(
                        f,
                        "the artifacts hold {present} distinct probes, more than the {size} of their probe set (ids {declared}; given {given})"
                    )
                } else {
                    write!(
                        f,
                        "the artifacts hold {present} distinct probes, as many as their probe set, but not its probes: their ids digest to {given}, the set's to {declared}"
                    )
                }
            }
        }
    }
}

/// A set of artifacts refused by [`aggregate`] (exit 4 at the CLI, no
/// output), with every reason found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(deny_unknown_fields)]
pub struct AggregateRefusal {
    /// Every reason, in a fixed order.
    pub reasons: Vec<RefusalReason>,
}

impl fmt::Display for AggregateRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.reasons.iter().map(ToString::to_string).collect();
        write!(f, "inconsistent artifact set: {}", parts.join("; "))
    }
}

fn group_by<F: Fn(&EvidenceArtifact) -> String>(
    artifacts: &[EvidenceArtifact],
    key: F,
) -> Vec<ValueGroup> {
    let mut map: BTreeMap<String, Vec<ArtifactRef>> = BTreeMap::new();
    for (i, a) in artifacts.iter().enumerate() {
        map.entry(key(a)).or_default().push(ArtifactRef::of(i, a));
    }
    map.into_iter()
        .map(|(value, artifacts)| ValueGroup { value, artifacts })
        .collect()
}

/// Every reason `artifacts` do not form one consistent measurement under
/// `policy`; empty when they do.
fn set_problems(artifacts: &[EvidenceArtifact], policy: &Policy) -> Vec<RefusalReason> {
    let mut reasons = Vec::new();
    if artifacts.is_empty() {
        reasons.push(RefusalReason::NoArtifacts);
        return reasons;
    }
    for (i, a) in artifacts.iter().enumerate() {
        let contradictions = a.contradictions();
        if !contradictions.is_empty() {
            reasons.push(RefusalReason::SelfContradiction {
                artifact: ArtifactRef::of(i, a),
                contradictions,
            });
        }
    }
    let mismatched = |f: &dyn Fn(&EvidenceArtifact) -> bool| -> Vec<ArtifactRef> {
        artifacts
            .iter()
            .enumerate()
            .filter(|(_, a)| f(a))
            .map(|(i, a)| ArtifactRef::of(i, a))
            .collect()
    };
    let expected = policy.digest();
    let off = mismatched(&|a| a.policy.digest != expected);
    if !off.is_empty() {
        reasons.push(RefusalReason::PolicyMismatch {
            expected,
            artifacts: off,
        });
    }
    let off = mismatched(&|a| a.policy.minimum_trials != policy.minimum_trials);
    if !off.is_empty() {
        reasons.push(RefusalReason::MinimumTrialsMismatch {
            expected: policy.minimum_trials,
            artifacts: off,
        });
    }
    let off =
        mismatched(&|a| a.policy.catch_threshold.to_bits() != policy.catch_threshold.to_bits());
    if !off.is_empty() {
        reasons.push(RefusalReason::CatchThresholdMismatch {
            expected: policy.catch_threshold,
            artifacts: off,
        });
    }
    let g = group_by(artifacts, |a| a.scoring_version.clone());
    if g.len() > 1 {
        reasons.push(RefusalReason::ScoringVersionMismatch { groups: g });
    }
    let g = group_by(artifacts, |a| {
        format!("{}@{}", a.contract.id, a.contract.digest)
    });
    if g.len() > 1 {
        reasons.push(RefusalReason::ContractMismatch { groups: g });
    }
    for g in group_by(artifacts, |a| a.probe.id.clone()) {
        if g.artifacts.len() > 1 {
            reasons.push(RefusalReason::SharedProbe {
                probe_id: g.value,
                artifacts: g.artifacts,
            });
        }
    }
    reasons.extend(probe_set_problem(artifacts));
    reasons
}

/// Whether `artifacts` cover the probe set they record, exactly: one
/// recorded set, and their distinct probe ids are that set's ids.
fn probe_set_problem(artifacts: &[EvidenceArtifact]) -> Option<RefusalReason> {
    let g = group_by(artifacts, |a| {
        let n = a.probe_set.size;
        let noun = if n == 1 { "probe" } else { "probes" };
        format!("{n} {noun}, ids {}", a.probe_set.ids_digest)
    });
    if g.len() > 1 {
        return Some(RefusalReason::ProbeSetMismatch { groups: g });
    }
    let declared = &artifacts.first()?.probe_set;
    let ids: Vec<&str> = artifacts.iter().map(|a| a.probe.id.as_str()).collect();
    let present = ProbeSet::of(&ids);
    if present.size < declared.size {
        Some(RefusalReason::IncompleteProbeSet {
            size: declared.size,
            ids_digest: declared.ids_digest.clone(),
            present: present.size,
            missing: declared.size - present.size,
        })
    } else if present != *declared {
        Some(RefusalReason::ProbeSetIdsMismatch {
            size: declared.size,
            ids_digest: declared.ids_digest.clone(),
            present: present.size,
            present_ids_digest: present.ids_digest,
        })
    } else {
        None
    }
}

// ---------------------------------------------------------------------------
// Aggregation
// ---------------------------------------------------------------------------

/// Declared run-wide floors per strength class: "defect probes are caught
/// at least three times in four" is `defect: 0.75`. `None`: no floor.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassFloors {
    /// Floor for the defect rate, in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defect: Option<f64>,
    /// Floor for the gameability rate, in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gameability: Option<f64>,
    /// Floor for the zero-action rate, in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_action: Option<f64>,
}

impl ClassFloors {
    /// The floor declared for `class`.
    pub fn get(&self, class: StrengthClass) -> Option<f64> {
        match class {
            StrengthClass::Defect => self.defect,
            StrengthClass::Gameability => self.gameability,
            StrengthClass::ZeroAction => self.zero_action,
        }
    }
}

/// Why a class does not meet (or could not be held to) a floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case", deny_unknown_fields)]
pub enum FloorShortfall {
    /// The set holds no probe of the class.
    NoEligibleProbe,
    /// Probes of the class that are not comparable (too few trials or an
    /// unreached oracle): the class's rate is not evidence.
    NotComparable {
        /// Their ids.
        probes: Vec<String>,
    },
    /// Probes of the class with no valid vote: a rate over the others would
    /// let them drop out of the claim.
    Unexercised {
        /// Their ids.
        probes: Vec<String>,
    },
    /// The rate is below the floor.
    BelowFloor {
        /// The rate.
        rate: f64,
        /// The floor.
        floor: f64,
    },
}

/// One class of an aggregate, decided against its floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassDecision {
    /// The class.
    pub class: StrengthClass,
    /// The declared floor, if any.
    pub floor: Option<f64>,
    /// Probes of the class in the set.
    pub eligible: u32,
    /// Every eligible probe is comparable.
    pub comparable: bool,
    /// `None` with no floor declared; else whether the floor is met (no
    /// shortfall).
    pub meets_floor: Option<bool>,
    /// Every shortfall found (recorded also when no floor is declared).
    pub shortfalls: Vec<FloorShortfall>,
}

/// A probe that was exercised and not caught, for the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MissedProbe {
    /// The probe id.
    pub probe_id: String,
    /// Its class.
    pub class: ProbeClass,
    /// Its severity.
    pub severity: Severity,
    /// The clause it targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<String>,
    /// The mutation that slipped through.
    pub mutation: String,
}

/// An artifact read by an aggregate, by probe and digest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactDigest {
    /// The probe id.
    pub probe_id: String,
    /// The artifact's digest.
    pub digest: String,
}

/// The run-wide class rates of one contract over one probe set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    /// [`AGGREGATE_VERSION`].
    pub version: u32,
    /// The pactum version that aggregated.
    pub engine_version: String,
    /// The contract measured.
    pub contract: ContractRef,
    /// The scoring policy.
    pub policy: PolicyRecord,
    /// The scoring version every artifact shares.
    pub scoring_version: String,
    /// [`comparability_key`] over every probe id of the set.
    pub comparability_key: String,
    /// The probe set every artifact records, which they cover exactly.
    pub probe_set: ProbeSet,
    /// Distinct probes caught / exercised per class.
    pub strength: StrengthVector,
    /// Each class against its floor, in vector order.
    pub classes: Vec<ClassDecision>,
    /// The worst artifact verdict.
    pub verdict: Ladder,
    /// Strength-class probes exercised and not caught, by id.
    pub missed_probes: Vec<MissedProbe>,
    /// Every artifact read, sorted by probe id.
    pub artifacts: Vec<ArtifactDigest>,
}

impl Aggregate {
    /// Canonical JSON (RFC 8785) bytes.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        canonical_json(self).into_bytes()
    }
}

/// The run-wide class rates of a set of artifacts, each class decided
/// against its floor (SPEC §3.8; `docs/strength.md`).
///
/// A class meets its floor only when it has an eligible probe, every
/// eligible probe is comparable and exercised, and its rate is at least
/// the floor.
///
/// # Errors
/// [`AggregateRefusal`] listing every reason, when the set is empty; an
/// artifact contradicts itself; artifacts carry another policy digest,
/// minimum trial count or catch threshold than `policy`; they disagree on
/// scoring version, contract or probe set; they share a probe; they do not
/// cover their probe set exactly (an artifact of the run left out, or
/// probes of another set); or a floor is outside [0, 1].
pub fn aggregate(
    artifacts: &[EvidenceArtifact],
    policy: &Policy,
    floors: &ClassFloors,
    engine_version: &str,
) -> Result<Aggregate, AggregateRefusal> {
    let mut reasons = Vec::new();
    for class in StrengthClass::ALL {
        if let Some(value) = floors.get(class) {
            if !(0.0..=1.0).contains(&value) {
                reasons.push(RefusalReason::InvalidFloor { class, value });
            }
        }
    }
    reasons.extend(set_problems(artifacts, policy));
    let Some(first) = artifacts.first() else {
        return Err(AggregateRefusal { reasons });
    };
    if !reasons.is_empty() {
        return Err(AggregateRefusal { reasons });
    }
    let mut sorted: Vec<&EvidenceArtifact> = artifacts.iter().collect();
    sorted.sort_by(|a, b| a.probe.id.cmp(&b.probe.id));
    let probes: Vec<(&str, ProbeClass, &ReducedProbe)> = sorted
        .iter()
        .map(|a| (a.probe.id.as_str(), a.probe.class, &a.reduced))
        .collect();
    let strength = strength_vector(&probes);
    let ids: Vec<&str> = sorted.iter().map(|a| a.probe.id.as_str()).collect();
    let classes = StrengthClass::ALL
        .into_iter()
        .map(|class| {
            let eligible: Vec<&&EvidenceArtifact> = sorted
                .iter()
                .filter(|a| a.probe.class.strength_class() == Some(class))
                .collect();
            let not_comparable: Vec<String> = eligible
                .iter()
                .filter(|a| !a.comparable)
                .map(|a| a.probe.id.clone())
                .collect();
            let unexercised: Vec<String> = eligible
                .iter()
                .filter(|a| !a.reduced.exercised())
                .map(|a| a.probe.id.clone())
                .collect();
            let floor = floors.get(class);
            let mut shortfalls = Vec::new();
            if eligible.is_empty() {
                shortfalls.push(FloorShortfall::NoEligibleProbe);
            }
            let comparable = not_comparable.is_empty();
            if !comparable {
                shortfalls.push(FloorShortfall::NotComparable {
                    probes: not_comparable,
                });
            }
            if !unexercised.is_empty() {
                shortfalls.push(FloorShortfall::Unexercised {
                    probes: unexercised,
                });
            }
            if let (Some(floor), Some(rate)) = (floor, strength.get(class).rate) {
                if rate < floor {
                    shortfalls.push(FloorShortfall::BelowFloor { rate, floor });
                }
            }
            ClassDecision {
                class,
                floor,
                eligible: u32::try_from(eligible.len()).unwrap_or(u32::MAX),
                comparable,
                meets_floor: floor.map(|_| shortfalls.is_empty()),
                shortfalls,
            }
        })
        .collect();
    let missed_probes = sorted
        .iter()
        .filter(|a| {
            a.probe.class.strength_class().is_some() && a.reduced.exercised() && !a.reduced.caught
        })
        .map(|a| MissedProbe {
            probe_id: a.probe.id.clone(),
            class: a.probe.class,
            severity: a.probe.severity,
            targets: a.probe.targets.clone(),
            mutation: a.probe.mutation.clone(),
        })
        .collect();
    Ok(Aggregate {
        version: AGGREGATE_VERSION,
        engine_version: engine_version.to_string(),
        contract: first.contract.clone(),
        policy: PolicyRecord::of(policy),
        scoring_version: first.scoring_version.clone(),
        comparability_key: comparability_key(&policy.digest(), &ids),
        probe_set: first.probe_set.clone(),
        strength,
        classes,
        verdict: sorted
            .iter()
            .map(|a| a.verdict)
            .max()
            .unwrap_or(Ladder::Pass),
        missed_probes,
        artifacts: sorted
            .iter()
            .map(|a| ArtifactDigest {
                probe_id: a.probe.id.clone(),
                digest: a.digest.clone(),
            })
            .collect(),
    })
}

// ---------------------------------------------------------------------------
// Dominance
// ---------------------------------------------------------------------------

/// The artifacts of one contract over one probe set (one `pactum strength`
/// run), all of them: [`compare`] finds a side incomparable when its
/// artifacts do not cover the [`ProbeSet`] they record. Its comparability
/// key is [`comparability_key`] over the policy digest and the sorted probe
/// ids of the whole set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EvidenceSet {
    /// The artifacts, in any order.
    pub artifacts: Vec<EvidenceArtifact>,
}

impl EvidenceSet {
    /// Wraps artifacts.
    pub fn new(artifacts: Vec<EvidenceArtifact>) -> Self {
        EvidenceSet { artifacts }
    }

    /// The probe ids, sorted.
    pub fn probe_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self.artifacts.iter().map(|a| a.probe.id.as_str()).collect();
        ids.sort_unstable();
        ids
    }

    /// The set's comparability key under `policy`.
    pub fn comparability_key(&self, policy: &Policy) -> String {
        comparability_key(&policy.digest(), &self.probe_ids())
    }

    /// The set's strength vector.
    pub fn strength_vector(&self) -> StrengthVector {
        let mut sorted: Vec<&EvidenceArtifact> = self.artifacts.iter().collect();
        sorted.sort_by(|a, b| a.probe.id.cmp(&b.probe.id));
        let probes: Vec<(&str, ProbeClass, &ReducedProbe)> = sorted
            .iter()
            .map(|a| (a.probe.id.as_str(), a.probe.class, &a.reduced))
            .collect();
        strength_vector(&probes)
    }

    fn by_id(&self) -> BTreeMap<&str, &EvidenceArtifact> {
        self.artifacts
            .iter()
            .map(|a| (a.probe.id.as_str(), a))
            .collect()
    }
}

/// The four-valued relation between two contracts' strength (SPEC §3.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dominance {
    /// A is at least as strong in every measured class and stronger in one.
    ADominatesB,
    /// B is at least as strong in every measured class and stronger in one.
    BDominatesA,
    /// Identical caught and exercised counts in every class.
    Equivalent,
    /// Anything else, with the reason recorded.
    Incomparable,
}

impl Dominance {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Dominance::ADominatesB => "a-dominates-b",
            Dominance::BDominatesA => "b-dominates-a",
            Dominance::Equivalent => "equivalent",
            Dominance::Incomparable => "incomparable",
        }
    }
}

/// A side of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The first set.
    A,
    /// The second set.
    B,
}

/// A probe at or above the floor that the would-be winner did not catch
/// and the other side caught.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VetoProbe {
    /// The probe id.
    pub probe_id: String,
    /// Its severity.
    pub severity: Severity,
}

/// Why a comparison came out as it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ComparisonReason {
    /// A side is not one consistent measurement under the policy given
    /// (an artifact contradicts itself, reductions disagree with outcomes,
    /// mixed policies, artifacts of its probe set missing…).
    Inconsistent {
        /// The side.
        side: Side,
        /// Every reason.
        problems: Vec<RefusalReason>,
    },
    /// The comparability keys differ: other probes or another policy.
    KeyMismatch {
        /// A's key.
        a: String,
        /// B's key.
        b: String,
    },
    /// A side has probes that are not comparable (too few trials or an
    /// unreached oracle).
    NotComparable {
        /// A's non-comparable probes.
        a: Vec<String>,
        /// B's non-comparable probes.
        b: Vec<String>,
    },
    /// The same probe ids declare different probes (class, target,
    /// mutation or severity).
    ProbeMismatch {
        /// The ids.
        probes: Vec<String>,
    },
    /// Caught and exercised counts are identical in every class.
    IdenticalCounts,
    /// No class has a rate on both sides.
    NoCommonClass,
    /// One side's rates are at least the other's everywhere and higher in
    /// the classes listed.
    Dominates {
        /// The winner.
        winner: Side,
        /// Where it is strictly higher.
        higher: Vec<StrengthClass>,
    },
    /// Each side is higher somewhere.
    Mixed {
        /// Where A is higher.
        a_higher: Vec<StrengthClass>,
        /// Where B is higher.
        b_higher: Vec<StrengthClass>,
    },
    /// Rates tie wherever both are measured, but counts differ.
    EqualRatesDifferentCounts {
        /// Classes whose caught or exercised counts differ.
        classes: Vec<StrengthClass>,
    },
    /// The rates favoured `would_dominate`, but it did not catch probes at
    /// or above the severity floor that the other side caught.
    SeverityFloorVeto {
        /// The side the rates favoured.
        would_dominate: Side,
        /// The probes it let through.
        probes: Vec<VetoProbe>,
    },
}

/// The outcome of [`compare`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    /// The relation.
    pub dominance: Dominance,
    /// Why.
    pub reason: ComparisonReason,
    /// A's vector, when A is consistent.
    pub a: Option<StrengthVector>,
    /// B's vector, when B is consistent.
    pub b: Option<StrengthVector>,
}

/// `x.caught / x.exercised` against `y`'s, exactly (cross-multiplied).
fn rate_cmp(x: &ClassRate, y: &ClassRate) -> std::cmp::Ordering {
    (u64::from(x.caught) * u64::from(y.exercised))
        .cmp(&(u64::from(y.caught) * u64::from(x.exercised)))
}

/// Compares two contracts' strength over the same probe set (SPEC §3.8).
///
/// In order: each side must be one consistent measurement under `policy`
/// (the checks [`aggregate`] makes, so a side that does not cover its
/// probe set exactly is `incomparable`, reason `inconsistent`, whatever
/// its rates); the comparability keys must match;
/// every probe must be comparable on both sides; the shared ids must
/// declare the same probes. Then, identical caught/exercised counts in
/// every class → `equivalent`. Otherwise, over the classes where both
/// rates are non-null: higher-or-equal everywhere and higher somewhere →
/// that side dominates; each higher somewhere, equal rates with different
/// counts, or no common class → `incomparable`. Severity-floor veto: a
/// would-be winner that did not catch a strength probe at or above
/// `policy.severity_floor` that the other side caught does not dominate
/// (`incomparable`); the veto never alters `equivalent`.
pub fn compare(a: &EvidenceSet, b: &EvidenceSet, policy: &Policy) -> Comparison {
    let incomparable = |reason, va, vb| Comparison {
        dominance: Dominance::Incomparable,
        reason,
        a: va,
        b: vb,
    };
    let pa = set_problems(&a.artifacts, policy);
    let pb = set_problems(&b.artifacts, policy);
    let va = pa.is_empty().then(|| a.strength_vector());
    let vb = pb.is_empty().then(|| b.strength_vector());
    if !pa.is_empty() {
        return incomparable(
            ComparisonReason::Inconsistent {
                side: Side::A,
                problems: pa,
            },
            va,
            vb,
        );
    }
    if !pb.is_empty() {
        return incomparable(
            ComparisonReason::Inconsistent {
                side: Side::B,
                problems: pb,
            },
            va,
            vb,
        );
    }
    let (ka, kb) = (a.comparability_key(policy), b.comparability_key(policy));
    if ka != kb {
        return incomparable(ComparisonReason::KeyMismatch { a: ka, b: kb }, va, vb);
    }
    let not_comparable = |s: &EvidenceSet| -> Vec<String> {
        let mut v: Vec<String> = s
            .artifacts
            .iter()
            .filter(|x| !x.comparable)
            .map(|x| x.probe.id.clone())
            .collect();
        v.sort();
        v
    };
    let (nca, ncb) = (not_comparable(a), not_comparable(b));
    if !nca.is_empty() || !ncb.is_empty() {
        return incomparable(ComparisonReason::NotComparable { a: nca, b: ncb }, va, vb);
    }
    let (ia, ib) = (a.by_id(), b.by_id());
    let differing: Vec<String> = ia
        .iter()
        .filter(|(id, x)| ib.get(*id).is_none_or(|y| y.probe != x.probe))
        .map(|(id, _)| (*id).to_string())
        .collect();
    if !differing.is_empty() {
        return incomparable(
            ComparisonReason::ProbeMismatch { probes: differing },
            va,
            vb,
        );
    }
    let (Some(sa), Some(sb)) = (va.clone(), vb.clone()) else {
        return incomparable(ComparisonReason::NoCommonClass, va, vb);
    };
    let counts_differ: Vec<StrengthClass> = StrengthClass::ALL
        .into_iter()
        .filter(|c| {
            let (x, y) = (sa.get(*c), sb.get(*c));
            (x.caught, x.exercised) != (y.caught, y.exercised)
        })
        .collect();
    if counts_differ.is_empty() {
        return Comparison {
            dominance: Dominance::Equivalent,
            reason: ComparisonReason::IdenticalCounts,
            a: va,
            b: vb,
        };
    }
    let common: Vec<StrengthClass> = StrengthClass::ALL
        .into_iter()
        .filter(|c| sa.get(*c).rate.is_some() && sb.get(*c).rate.is_some())
        .collect();
    if common.is_empty() {
        return incomparable(ComparisonReason::NoCommonClass, va, vb);
    }
    let higher = |x: &StrengthVector, y: &StrengthVector| -> Vec<StrengthClass> {
        common
            .iter()
            .copied()
            .filter(|c| rate_cmp(x.get(*c), y.get(*c)).is_gt())
            .collect()
    };
    let (a_higher, b_higher) = (higher(&sa, &sb), higher(&sb, &sa));
    let (winner, higher) = match (a_higher.is_empty(), b_higher.is_empty()) {
        (true, true) => {
            return incomparable(
                ComparisonReason::EqualRatesDifferentCounts {
                    classes: counts_differ,
                },
                va,
                vb,
            )
        }
        (false, false) => {
            return incomparable(ComparisonReason::Mixed { a_higher, b_higher }, va, vb)
        }
        (false, true) => (Side::A, a_higher),
        (true, false) => (Side::B, b_higher),
    };
    let (w, l) = match winner {
        Side::A => (&ia, &ib),
        Side::B => (&ib, &ia),
    };
    let vetoes: Vec<VetoProbe> = w
        .iter()
        .filter(|(id, x)| {
            x.probe.class.strength_class().is_some()
                && at_or_above_floor(x.probe.severity, policy)
                && !x.reduced.caught
                && l.get(*id).is_some_and(|y| y.reduced.caught)
        })
        .map(|(id, x)| VetoProbe {
            probe_id: (*id).to_string(),
            severity: x.probe.severity,
        })
        .collect();
    if !vetoes.is_empty() {
        return incomparable(
            ComparisonReason::SeverityFloorVeto {
                would_dominate: winner,
                probes: vetoes,
            },
            va,
            vb,
        );
    }
    Comparison {
        dominance: match winner {
            Side::A => Dominance::ADominatesB,
            Side::B => Dominance::BDominatesA,
        },
        reason: ComparisonReason::Dominates { winner, higher },
        a: va,
        b: vb,
    }
}
