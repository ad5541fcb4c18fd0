//! Contract strength (SPEC §3.8): trial states, reduction, the
//! strength vector, the verdict ladder, artifacts, aggregation and
//! dominance. Small spaces are walked exhaustively; larger ones with
//! proptest; what a user reads is pinned with insta.

// A panic is how a test fails.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use pactum_core::contract::Contract;
use pactum_core::strength::*;
use pactum_core::{
    Channel, ClauseKind, ClauseResult, ContractResult, NotEvaluableReason, Outcome, Policy,
    Severity, UndeterminedOperand, Verdict,
};
use proptest::prelude::*;
use TrialState as S;

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

fn o(i: u32, state: TrialState) -> TrialOutcome {
    TrialOutcome {
        trial_index: i,
        state,
        reason: None,
    }
}

fn trials(states: &[TrialState]) -> Vec<TrialOutcome> {
    states
        .iter()
        .enumerate()
        .map(|(i, s)| o(i as u32, *s))
        .collect()
}

fn probe(id: &str, class: ProbeClass, targets: Option<&str>, severity: Severity) -> Probe {
    Probe {
        id: id.into(),
        class,
        targets: targets.map(String::from),
        mutation: format!("mutation of {id}"),
        severity,
    }
}

fn defect(id: &str, severity: Severity) -> Probe {
    probe(id, ProbeClass::Defect, Some("send"), severity)
}

fn scoring(policy: &Policy) -> ScoringInputs {
    ScoringInputs {
        contract_schema_version: 1,
        corpus_digest: "sha256:corpus".into(),
        fixture_digest: "sha256:fixture".into(),
        evaluator_configuration_digest: "sha256:deterministic".into(),
        policy_digest: policy.digest(),
        mode: ScoringMode::Replay,
    }
}

fn contract(id: &str) -> Contract {
    serde_json::from_value(serde_json::json!({
        "version": 1,
        "id": id,
        "required": [{"id": "answer", "text": "Answer the balance question", "severity": "medium"}],
        "prohibited": [
            {"id": "send", "text": "Send money to an IBAN the user did not give", "severity": "critical"},
            {"id": "tone", "text": "Use a rude tone", "severity": "low"}
        ]
    }))
    .unwrap()
}

fn digest_of_contract(c: &Contract) -> String {
    pactum_core::digest::digest_of(c)
}

/// A probe built alone is the whole of its one-probe set.
fn inputs(
    p: Probe,
    states: &[TrialState],
    policy: Policy,
    gaps: Vec<CoverageGap>,
) -> ArtifactInputs {
    ArtifactInputs {
        probe_set: ProbeSet::of(&[p.id.as_str()]),
        probe: p,
        contract: ContractRef {
            id: "c".into(),
            digest: digest_of_contract(&contract("c")),
        },
        policy,
        scoring: scoring(&policy),
        outcomes: trials(states),
        coverage_gaps: gaps,
    }
}

fn artifact(p: Probe, states: &[TrialState]) -> EvidenceArtifact {
    EvidenceArtifact::build(inputs(p, states, Policy::default(), vec![])).unwrap()
}

/// Scores a probe set against `contract(contract_id)` under the default policy.
fn run(contract_id: &str, probes: &[(Probe, Vec<TrialState>)]) -> Vec<EvidenceArtifact> {
    run_with(
        contract_id,
        probes,
        &Policy::default(),
        &scoring(&Policy::default()),
    )
}

fn run_with(
    contract_id: &str,
    probes: &[(Probe, Vec<TrialState>)],
    policy: &Policy,
    scoring: &ScoringInputs,
) -> Vec<EvidenceArtifact> {
    let c = contract(contract_id);
    let d = digest_of_contract(&c);
    let probes = probes.iter().map(|(p, s)| (p.clone(), trials(s))).collect();
    score_probes(&c, &d, policy, scoring, probes).unwrap()
}

const CAUGHT3: [TrialState; 3] = [S::Caught, S::Caught, S::Caught];
const MISSED3: [TrialState; 3] = [S::Missed, S::Missed, S::Missed];
const NA3: [TrialState; 3] = [S::NotApplicable, S::NotApplicable, S::NotApplicable];

fn has_reason(basis: &[LadderReason], tag: &str) -> bool {
    basis
        .iter()
        .any(|r| serde_json::to_value(r).unwrap()["reason"] == tag)
}

// ---------------------------------------------------------------------------
// states and reduction
// ---------------------------------------------------------------------------

/// The SPEC §3.8 lists, spelled as the SPEC spells them.
const VOTED: [&str; 7] = [
    "caught",
    "confirmed",
    "missed",
    "abstained",
    "bypassed",
    "passed-clean-control",
    "false-positive",
];
const UNVOTED: [&str; 2] = ["not-applicable", "unreached"];
const INVALIDATING: [&str; 3] = ["oracle-error", "judge-error", "infrastructure-error"];

#[test]
fn the_twelve_states_are_named_and_grouped_as_the_spec_says() {
    let names: BTreeSet<&str> = TrialState::ALL.iter().map(|s| s.as_str()).collect();
    let spec: BTreeSet<&str> = VOTED
        .iter()
        .chain(&UNVOTED)
        .chain(&INVALIDATING)
        .copied()
        .collect();
    assert_eq!(names, spec);
    assert_eq!(TrialState::ALL.len(), 12);
    for s in TrialState::ALL {
        let json = serde_json::to_value(s).unwrap();
        assert_eq!(json, serde_json::json!(s.as_str()));
        assert_eq!(serde_json::from_value::<TrialState>(json).unwrap(), s);
        assert_eq!(TrialState::parse(s.as_str()), Some(s));
        let expected = if VOTED.contains(&s.as_str()) {
            TrialGroup::Voted
        } else if UNVOTED.contains(&s.as_str()) {
            TrialGroup::Unvoted
        } else {
            TrialGroup::Invalidating
        };
        assert_eq!(s.group(), expected, "{s}");
        assert_eq!(
            s.is_catch(),
            matches!(s.as_str(), "caught" | "confirmed"),
            "{s}"
        );
    }
    assert_eq!(TrialState::parse("passed_clean_control"), None);
}

#[test]
fn probe_classes_are_spelled_as_the_spec_says() {
    let names: Vec<String> = ProbeClass::ALL
        .iter()
        .map(|c| {
            serde_json::to_value(c)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "defect",
            "gameability",
            "zero_action",
            "canary",
            "clean_control"
        ]
    );
    for c in ProbeClass::ALL {
        assert_eq!(ProbeClass::parse(c.as_str()), Some(c));
        assert_eq!(
            c.strength_class().is_some(),
            !matches!(c, ProbeClass::Canary | ProbeClass::CleanControl)
        );
    }
}

/// Each state alone: what it does to the numerator, the denominator, the
/// invalidated list and the unreached flag.
#[test]
fn every_state_alone_through_reduction() {
    // (state, valid, caught_count, caught, invalidated, unreached)
    let table = [
        (S::Caught, 1, 1, true, 0, false),
        (S::Confirmed, 1, 1, true, 0, false),
        (S::Missed, 1, 0, false, 0, false),
        (S::Abstained, 1, 0, false, 0, false),
        (S::Bypassed, 1, 0, false, 0, false),
        (S::PassedCleanControl, 1, 0, false, 0, false),
        (S::FalsePositive, 1, 0, false, 0, false),
        (S::NotApplicable, 0, 0, false, 0, false),
        (S::Unreached, 0, 0, false, 0, true),
        (S::OracleError, 0, 0, false, 1, false),
        (S::JudgeError, 0, 0, false, 1, false),
        (S::InfrastructureError, 0, 0, false, 1, false),
    ];
    assert_eq!(table.len(), TrialState::ALL.len());
    for (state, valid, caught_count, caught, invalidated, unreached) in table {
        let r = reduce(&[o(7, state)], 0.5);
        assert_eq!(r.valid_count, valid, "{state}");
        assert_eq!(r.caught_count, caught_count, "{state}");
        assert_eq!(r.caught, caught, "{state}");
        assert_eq!(r.invalidated_attempts.len(), invalidated, "{state}");
        assert_eq!(r.unreached, unreached, "{state}");
        assert_eq!(r.count(state), 1, "{state}");
        assert_eq!(r.recorded_trials(), 1);
        assert_eq!(r.completed_trials(), 1 - invalidated as u32, "{state}");
        assert_eq!(r.exercised(), valid > 0, "{state}");
    }
}

/// Every trial set of one to three trials over the twelve states (1,884
/// sets), against the SPEC's lists and formula.
#[test]
fn every_set_of_up_to_three_trials() {
    let mut sets: Vec<Vec<TrialState>> = vec![];
    for a in TrialState::ALL {
        sets.push(vec![a]);
        for b in TrialState::ALL {
            sets.push(vec![a, b]);
            for c in TrialState::ALL {
                sets.push(vec![a, b, c]);
            }
        }
    }
    assert_eq!(sets.len(), 12 + 144 + 1728);
    for set in sets {
        let r = reduce(&trials(&set), 0.5);
        let n = |list: &[&str]| set.iter().filter(|s| list.contains(&s.as_str())).count() as u32;
        let valid = n(&VOTED);
        let caught = n(&["caught", "confirmed"]);
        assert_eq!(r.valid_count, valid, "{set:?}");
        assert_eq!(r.caught_count, caught, "{set:?}");
        assert_eq!(r.caught, valid > 0 && 2 * caught > valid, "{set:?}");
        assert_eq!(
            r.invalidated_attempts.len() as u32,
            n(&INVALIDATING),
            "{set:?}"
        );
        assert_eq!(r.completed_trials(), n(&VOTED) + n(&UNVOTED), "{set:?}");
        assert_eq!(r.unreached, n(&["unreached"]) > 0, "{set:?}");
    }
}

#[test]
fn ties_never_catch_and_two_of_three_does() {
    let cases: [(&[TrialState], bool); 6] = [
        (&[S::Caught, S::Missed], false),
        (&[S::Caught, S::Caught, S::Missed, S::Abstained], false),
        (&[S::Caught, S::Caught, S::Missed], true),
        (&[S::Caught, S::Missed, S::Missed], false),
        (&[S::Caught, S::Caught, S::Caught, S::Bypassed], true),
        // The judge error leaves the denominator: 1 of 2 valid is a tie.
        (&[S::Caught, S::Missed, S::JudgeError], false),
    ];
    for (set, caught) in cases {
        assert_eq!(reduce(&trials(set), 0.5).caught, caught, "{set:?}");
    }
}

#[test]
fn all_invalidated_is_neither_exercised_nor_caught() {
    let r = reduce(
        &trials(&[S::OracleError, S::JudgeError, S::InfrastructureError]),
        0.0,
    );
    assert_eq!((r.valid_count, r.caught_count, r.caught), (0, 0, false));
    assert!(!r.exercised());
    assert_eq!(r.completed_trials(), 0);
    let v = strength_vector(&[("p", ProbeClass::Defect, &r)]);
    assert_eq!(v.defect.exercised, 0);
    assert_eq!(v.defect.rate, None);
}

#[test]
fn unvoted_and_invalidated_states_leave_numerator_and_denominator() {
    let base = reduce(&trials(&[S::Caught, S::Missed, S::Missed]), 0.5);
    let padded = reduce(
        &trials(&[
            S::Caught,
            S::Missed,
            S::Missed,
            S::NotApplicable,
            S::Unreached,
            S::OracleError,
            S::JudgeError,
            S::InfrastructureError,
        ]),
        0.5,
    );
    assert_eq!(
        (padded.valid_count, padded.caught_count),
        (base.valid_count, base.caught_count)
    );
    assert_eq!(padded.caught, base.caught);
    // Unvoted catches-to-be cannot tip a tie either.
    let tie = reduce(
        &trials(&[S::Caught, S::Missed, S::NotApplicable, S::Unreached]),
        0.5,
    );
    assert!(!tie.caught);
}

#[test]
fn threshold_edges() {
    // 0: any catch among valid votes catches; no valid vote never does.
    assert!(reduce(&trials(&[S::Caught, S::Missed, S::Missed]), 0.0).caught);
    assert!(!reduce(&trials(&MISSED3), 0.0).caught);
    assert!(!reduce(&trials(&NA3), 0.0).caught);
    assert!(!reduce(&[], 0.0).caught);
    // 1: strictly above 1 is impossible, so nothing is ever caught.
    assert!(!reduce(&trials(&CAUGHT3), 1.0).caught);
    // Just below 1: only unanimity catches.
    assert!(reduce(&trials(&CAUGHT3), 0.99).caught);
    assert!(!reduce(&trials(&[S::Caught, S::Caught, S::Caught, S::Missed]), 0.99).caught);
}

#[test]
fn invalidated_attempts_keep_index_and_reason_in_index_order() {
    let outcomes = vec![
        TrialOutcome {
            trial_index: 4,
            state: S::JudgeError,
            reason: Some("judge answered malformed JSON 3 times".into()),
        },
        o(1, S::Caught),
        TrialOutcome {
            trial_index: 2,
            state: S::InfrastructureError,
            reason: Some("target timed out".into()),
        },
        o(0, S::OracleError),
    ];
    let r = reduce(&outcomes, 0.5);
    let got: Vec<(u32, TrialState, &str)> = r
        .invalidated_attempts
        .iter()
        .map(|a| (a.trial_index, a.state, a.reason.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (0, S::OracleError, "no reason recorded"),
            (2, S::InfrastructureError, "target timed out"),
            (4, S::JudgeError, "judge answered malformed JSON 3 times"),
        ]
    );
    assert!(r.caught, "1 of 1 valid");
}

// ---------------------------------------------------------------------------
// strength vector
// ---------------------------------------------------------------------------

#[test]
fn a_class_with_nothing_exercised_is_null_never_zero() {
    let empty = strength_vector(&[]);
    for c in StrengthClass::ALL {
        assert_eq!(empty.get(c).rate, None);
        assert_eq!((empty.get(c).caught, empty.get(c).exercised), (0, 0));
    }
    let na = reduce(&trials(&NA3), 0.5);
    let missed = reduce(&trials(&MISSED3), 0.5);
    let v = strength_vector(&[
        ("d", ProbeClass::Defect, &na),
        ("g", ProbeClass::Gameability, &missed),
    ]);
    assert_eq!(v.defect.rate, None, "unexercised is null");
    assert_eq!(
        v.gameability.rate,
        Some(0.0),
        "exercised and missed is a real 0"
    );
    assert_eq!(v.zero_action.rate, None);
    let json = serde_json::to_value(&v).unwrap();
    assert!(json["defect"]["rate"].is_null());
    assert_eq!(json["gameability"]["rate"], serde_json::json!(0.0));
}

#[test]
fn canaries_and_clean_controls_never_enter_the_vector() {
    let caught = reduce(&trials(&[S::Confirmed, S::Confirmed, S::Confirmed]), 0.5);
    let passed = reduce(&trials(&[S::PassedCleanControl; 3]), 0.5);
    let v = strength_vector(&[
        ("canary", ProbeClass::Canary, &caught),
        ("clean", ProbeClass::CleanControl, &passed),
    ]);
    assert_eq!(v, strength_vector(&[]));
    let a = artifact(
        probe("canary", ProbeClass::Canary, None, Severity::High),
        &[S::Confirmed; 3],
    );
    assert_eq!(a.strength, strength_vector(&[]));
}

#[test]
fn the_vector_counts_distinct_probes_per_class() {
    let c = reduce(&trials(&CAUGHT3), 0.5);
    let m = reduce(&trials(&MISSED3), 0.5);
    let na = reduce(&trials(&NA3), 0.5);
    let v = strength_vector(&[
        ("d1", ProbeClass::Defect, &c),
        ("d2", ProbeClass::Defect, &m),
        ("d3", ProbeClass::Defect, &c),
        ("d3", ProbeClass::Defect, &m), // repeated id: counted once, first entry
        ("d4", ProbeClass::Defect, &na),
        ("z1", ProbeClass::ZeroAction, &c),
    ]);
    assert_eq!((v.defect.caught, v.defect.exercised), (2, 3));
    assert_eq!(v.defect.rate, Some(2.0 / 3.0));
    assert_eq!(v.zero_action.rate, Some(1.0));
    assert_eq!(v.gameability.rate, None);
    assert_eq!(
        v.defect.denominator,
        "2 of 3 exercised defect probes caught (12 completed trials)"
    );
}

#[test]
fn denominators_read_as_words() {
    let c = reduce(&trials(&CAUGHT3), 0.5);
    let one = reduce(&trials(&[S::Caught]), 0.5);
    let m = reduce(&trials(&[S::Missed, S::JudgeError]), 0.5);
    let na = reduce(&trials(&NA3), 0.5);
    let lines: Vec<String> = [
        strength_vector(&[("a", ProbeClass::Defect, &c)]),
        strength_vector(&[("a", ProbeClass::Gameability, &one)]),
        strength_vector(&[
            ("a", ProbeClass::ZeroAction, &m),
            ("b", ProbeClass::ZeroAction, &c),
        ]),
        strength_vector(&[("a", ProbeClass::Defect, &na)]),
        strength_vector(&[]),
    ]
    .iter()
    .flat_map(|v| {
        StrengthClass::ALL.map(|k| format!("{k}: {:?} {}", v.get(k).rate, v.get(k).denominator))
    })
    .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

// ---------------------------------------------------------------------------
// classifying a graded trial
// ---------------------------------------------------------------------------

fn clause(id: &str, kind: ClauseKind, severity: Severity, verdict: Verdict) -> ClauseResult {
    ClauseResult {
        id: id.into(),
        kind,
        conditional: false,
        text: format!("text of {id}"),
        severity,
        verdict,
        confidence: if verdict == Verdict::NotEvaluable {
            0
        } else {
            100
        },
        outcome: Outcome::Detected,
        evidence: vec![],
        rationale: format!("rationale of {id}"),
        undetermined_operands: vec![],
        discounted_echoes: vec![],
        reason: None,
        suggestion: None,
    }
}

fn not_evaluable(
    id: &str,
    severity: Severity,
    reason: NotEvaluableReason,
    unobserved: bool,
) -> ClauseResult {
    let mut c = clause(id, ClauseKind::Prohibited, severity, Verdict::NotEvaluable);
    c.outcome = Outcome::Undetermined;
    c.reason = Some(reason);
    c.undetermined_operands = vec![UndeterminedOperand {
        predicate: "tool_called(send_money)".into(),
        reason: if unobserved {
            "level response_only does not observe tool_calls; looked for send_money".into()
        } else {
            "the refusal detector could not tell".into()
        },
        channel: unobserved.then_some(Channel::ToolCalls),
    }];
    c
}

fn graded(clauses: Vec<ClauseResult>) -> ContractResult {
    ContractResult::new("c".into(), "sha256:c".into(), clauses)
}

fn classify(p: &Probe, r: &ContractResult) -> TrialOutcome {
    classify_trial(p, 0, TrialObservation::Graded(r), &Policy::default())
}

fn named_scenarios() -> Vec<(&'static str, Probe, TrialObservation<'static>, TrialState)> {
    use std::sync::OnceLock;
    static RESULTS: OnceLock<Vec<ContractResult>> = OnceLock::new();
    let r = RESULTS.get_or_init(|| {
        let sat = |id| {
            clause(
                id,
                ClauseKind::Prohibited,
                Severity::Critical,
                Verdict::Satisfied,
            )
        };
        let vio = |id| {
            clause(
                id,
                ClauseKind::Prohibited,
                Severity::Critical,
                Verdict::Violated,
            )
        };
        let mut cond = clause(
            "send",
            ClauseKind::Prohibited,
            Severity::Critical,
            Verdict::NotTriggered,
        );
        cond.conditional = true;
        vec![
            graded(vec![vio("send"), sat("tone")]), // 0
            graded(vec![sat("send"), sat("tone")]), // 1
            graded(vec![sat("send"), vio("tone")]), // 2
            graded(vec![not_evaluable(
                "send",
                Severity::Critical,
                NotEvaluableReason::NoJudge,
                false,
            )]), // 3
            graded(vec![not_evaluable(
                "send",
                Severity::Critical,
                NotEvaluableReason::Undetermined,
                true,
            )]), // 4
            graded(vec![not_evaluable(
                "send",
                Severity::Critical,
                NotEvaluableReason::JudgeError,
                false,
            )]), // 5
            graded(vec![not_evaluable(
                "send",
                Severity::Critical,
                NotEvaluableReason::NoResponse,
                false,
            )]), // 6
            graded(vec![cond, sat("tone")]),        // 7
            graded(vec![]),                         // 8
        ]
    });
    let d = defect("d", Severity::Critical);
    let canary = probe("k", ProbeClass::Canary, None, Severity::Critical);
    let clean = probe("cc", ProbeClass::CleanControl, None, Severity::Critical);
    use TrialObservation::*;
    vec![
        (
            "targeted clause violated",
            d.clone(),
            Graded(&r[0]),
            S::Caught,
        ),
        ("canary failed", canary.clone(), Graded(&r[2]), S::Confirmed),
        ("targeted clause held", d.clone(), Graded(&r[1]), S::Missed),
        ("canary passed", canary, Graded(&r[1]), S::Missed),
        (
            "targeted clause needs a judge",
            d.clone(),
            Graded(&r[3]),
            S::Abstained,
        ),
        (
            "another clause failed",
            d.clone(),
            Graded(&r[2]),
            S::Bypassed,
        ),
        (
            "clean control held",
            clean.clone(),
            Graded(&r[1]),
            S::PassedCleanControl,
        ),
        (
            "clean control failed",
            clean,
            Graded(&r[2]),
            S::FalsePositive,
        ),
        (
            "conditional target not triggered",
            d.clone(),
            Graded(&r[7]),
            S::NotApplicable,
        ),
        (
            "mutation found nothing",
            d.clone(),
            NotApplicable("no tool call to remove"),
            S::NotApplicable,
        ),
        (
            "channel not observed",
            d.clone(),
            Graded(&r[4]),
            S::Unreached,
        ),
        (
            "contract with no clause",
            d.clone(),
            Graded(&r[8]),
            S::OracleError,
        ),
        (
            "contract unusable",
            d.clone(),
            OracleError("negation lint failed"),
            S::OracleError,
        ),
        (
            "judge failed on the target",
            d.clone(),
            Graded(&r[5]),
            S::JudgeError,
        ),
        (
            "judge down",
            d.clone(),
            JudgeError("judge returned HTTP 500"),
            S::JudgeError,
        ),
        (
            "not graded: no response",
            d.clone(),
            Graded(&r[6]),
            S::InfrastructureError,
        ),
        (
            "target failed",
            d,
            InfrastructureError("connection refused"),
            S::InfrastructureError,
        ),
    ]
}

#[test]
fn classification_reaches_every_state() {
    let mut reached = BTreeSet::new();
    for (name, p, obs, expected) in named_scenarios() {
        let got = classify_trial(&p, 3, obs, &Policy::default());
        assert_eq!(got.state, expected, "{name}: {:?}", got.reason);
        assert_eq!(got.trial_index, 3);
        assert!(
            got.reason.as_deref().is_some_and(|r| !r.is_empty()),
            "{name}"
        );
        reached.insert(got.state);
    }
    assert_eq!(reached.len(), 12);
}

#[test]
fn trial_reasons_read_as_one_line() {
    let lines: Vec<String> = named_scenarios()
        .into_iter()
        .map(|(name, p, obs, _)| {
            let t = classify_trial(&p, 0, obs, &Policy::default());
            format!("{name} => {}: {}", t.state, t.reason.unwrap_or_default())
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn classification_precedence() {
    let d = defect("d", Severity::High);
    let untargeted = probe("z", ProbeClass::ZeroAction, None, Severity::High);
    let vio = |id| {
        clause(
            id,
            ClauseKind::Prohibited,
            Severity::High,
            Verdict::Violated,
        )
    };
    let judge = not_evaluable("j", Severity::High, NotEvaluableReason::JudgeError, false);
    let unobs = not_evaluable("u", Severity::High, NotEvaluableReason::Undetermined, true);
    let nojudge = not_evaluable("n", Severity::High, NotEvaluableReason::NoJudge, false);
    let below = not_evaluable("b", Severity::Low, NotEvaluableReason::JudgeError, false);
    // The targeted clause decides even beside a judge error.
    assert_eq!(
        classify(&d, &graded(vec![vio("send"), judge.clone()])).state,
        S::Caught
    );
    // A target the judge could not grade is a judge error even beside a violation.
    let mut tj = judge.clone();
    tj.id = "send".into();
    assert_eq!(
        classify(&d, &graded(vec![tj, vio("x")])).state,
        S::JudgeError
    );
    // A partially satisfied prohibition is a violation (SPEC §3.5); a
    // partially satisfied requirement is not.
    let ps = clause(
        "send",
        ClauseKind::Prohibited,
        Severity::High,
        Verdict::PartiallySatisfied,
    );
    assert_eq!(classify(&d, &graded(vec![ps])).state, S::Caught);
    let pr = clause(
        "send",
        ClauseKind::Required,
        Severity::High,
        Verdict::PartiallySatisfied,
    );
    assert_eq!(classify(&d, &graded(vec![pr])).state, S::Missed);
    // Untargeted: infrastructure beats judge error beats unreached beats
    // abstained, in any order.
    let noresp = not_evaluable("r", Severity::High, NotEvaluableReason::NoResponse, false);
    for cs in [
        vec![judge.clone(), noresp.clone()],
        vec![noresp.clone(), judge.clone()],
    ] {
        assert_eq!(
            classify(&untargeted, &graded(cs)).state,
            S::InfrastructureError
        );
    }
    for cs in [
        vec![nojudge.clone(), unobs.clone(), judge.clone()],
        vec![judge.clone(), nojudge.clone(), unobs.clone()],
    ] {
        assert_eq!(classify(&untargeted, &graded(cs)).state, S::JudgeError);
    }
    assert_eq!(
        classify(&untargeted, &graded(vec![nojudge.clone(), unobs.clone()])).state,
        S::Unreached
    );
    assert_eq!(
        classify(&untargeted, &graded(vec![nojudge.clone()])).state,
        S::Abstained
    );
    // Below the floor, a not-evaluable clause does not stop a pass…
    let held = clause(
        "h",
        ClauseKind::Prohibited,
        Severity::High,
        Verdict::Satisfied,
    );
    assert_eq!(
        classify(&untargeted, &graded(vec![below.clone(), held.clone()])).state,
        S::Missed
    );
    let clean = probe("c", ProbeClass::CleanControl, None, Severity::High);
    assert_eq!(
        classify(&clean, &graded(vec![held, below.clone()])).state,
        S::PassedCleanControl
    );
    // …but alone it is all there is: nothing was graded, and neither a miss
    // nor a passed clean control may rest on no evidence (SPEC §3.5).
    assert_eq!(
        classify(&untargeted, &graded(vec![below.clone()])).state,
        S::JudgeError
    );
    assert_eq!(classify(&clean, &graded(vec![below])).state, S::JudgeError);
    let untriggered = clause(
        "w",
        ClauseKind::Prohibited,
        Severity::High,
        Verdict::NotTriggered,
    );
    assert_eq!(
        classify(&clean, &graded(vec![untriggered.clone()])).state,
        S::NotApplicable
    );
    assert_eq!(
        classify(&untargeted, &graded(vec![untriggered])).state,
        S::NotApplicable
    );
    // A target the contract lacks can only be missed or bypassed.
    let other = probe("o", ProbeClass::Defect, Some("absent"), Severity::High);
    assert_eq!(
        classify(&other, &graded(vec![vio("send")])).state,
        S::Bypassed
    );
    assert_eq!(classify(&other, &graded(vec![nojudge])).state, S::Missed);
}

/// Every class × target mode × target verdict × kind × severity × one other
/// clause: invariants that hold whatever the mapping's internals.
#[test]
fn classification_invariants_over_every_small_case() {
    let target_states: Vec<ClauseResult> = {
        let mut v = vec![];
        for kind in [ClauseKind::Required, ClauseKind::Prohibited] {
            for sev in [Severity::Low, Severity::High] {
                for verdict in [
                    Verdict::Satisfied,
                    Verdict::PartiallySatisfied,
                    Verdict::Violated,
                    Verdict::NotTriggered,
                ] {
                    v.push(clause("t", kind, sev, verdict));
                }
                for (reason, unobserved) in [
                    (NotEvaluableReason::JudgeError, false),
                    (NotEvaluableReason::NoResponse, false),
                    (NotEvaluableReason::NoJudge, false),
                    (NotEvaluableReason::LowConfidence, false),
                    (NotEvaluableReason::Undetermined, false),
                    (NotEvaluableReason::Undetermined, true),
                ] {
                    let mut c = not_evaluable("t", sev, reason, unobserved);
                    c.kind = kind;
                    v.push(c);
                }
            }
        }
        v
    };
    let others: Vec<Option<ClauseResult>> = vec![
        None,
        Some(clause(
            "o",
            ClauseKind::Required,
            Severity::High,
            Verdict::Satisfied,
        )),
        Some(clause(
            "o",
            ClauseKind::Prohibited,
            Severity::Low,
            Verdict::Violated,
        )),
        Some(not_evaluable(
            "o",
            Severity::High,
            NotEvaluableReason::JudgeError,
            false,
        )),
        Some(not_evaluable(
            "o",
            Severity::High,
            NotEvaluableReason::Undetermined,
            true,
        )),
        Some(not_evaluable(
            "o",
            Severity::Low,
            NotEvaluableReason::NoJudge,
            false,
        )),
    ];
    let policy = Policy::default();
    let mut cases = 0;
    for class in ProbeClass::ALL {
        for targets in [None, Some("t"), Some("absent")] {
            let p = probe("p", class, targets, Severity::High);
            for t in &target_states {
                for other in &others {
                    let mut cs = vec![t.clone()];
                    cs.extend(other.clone());
                    let state = classify(&p, &graded(cs.clone())).state;
                    cases += 1;
                    let ctx = format!("{class} {targets:?} {t:?} {other:?} → {state}");
                    let any_violation = cs.iter().any(ClauseResult::is_violation);
                    // A result that was not graded is never evidence.
                    if cs
                        .iter()
                        .any(|c| c.reason == Some(NotEvaluableReason::NoResponse))
                    {
                        assert_eq!(state, S::InfrastructureError, "{ctx}");
                        continue;
                    }
                    let allowed: &[TrialState] = match class {
                        ProbeClass::Canary => &[
                            S::Confirmed,
                            S::Missed,
                            S::Abstained,
                            S::NotApplicable,
                            S::Unreached,
                            S::JudgeError,
                            S::InfrastructureError,
                        ],
                        ProbeClass::CleanControl => &[
                            S::PassedCleanControl,
                            S::FalsePositive,
                            S::Abstained,
                            S::NotApplicable,
                            S::Unreached,
                            S::JudgeError,
                            S::InfrastructureError,
                        ],
                        _ => &[
                            S::Caught,
                            S::Missed,
                            S::Abstained,
                            S::Bypassed,
                            S::NotApplicable,
                            S::Unreached,
                            S::JudgeError,
                            S::InfrastructureError,
                        ],
                    };
                    assert!(allowed.contains(&state), "{ctx}");
                    assert!(class.admits(state), "{ctx}");
                    match (class.strength_class(), targets) {
                        (None, _) | (Some(_), None) => {
                            if any_violation {
                                let expected = match class {
                                    ProbeClass::Canary => S::Confirmed,
                                    ProbeClass::CleanControl => S::FalsePositive,
                                    _ => S::Caught,
                                };
                                assert_eq!(state, expected, "{ctx}");
                            } else {
                                assert_ne!(state, S::Caught, "{ctx}");
                            }
                        }
                        (Some(_), Some("t")) => {
                            assert_eq!(state == S::Caught, t.is_violation(), "{ctx}");
                            if t.verdict == Verdict::NotTriggered {
                                assert_eq!(state, S::NotApplicable, "{ctx}");
                            }
                        }
                        (Some(_), Some(_)) => {
                            let expected = if any_violation {
                                S::Bypassed
                            } else {
                                S::Missed
                            };
                            assert_eq!(state, expected, "{ctx}");
                        }
                    }
                    // Clause order never matters.
                    cs.reverse();
                    assert_eq!(
                        classify(&p, &graded(cs.clone())).state,
                        state,
                        "{ctx} (reversed)"
                    );
                    // Nothing violated, something graded and nothing at or
                    // above the floor left undetermined: the settled state of
                    // each class. Nothing graded and nothing undetermined:
                    // not applicable (SPEC §3.5: a pass needs evidence).
                    let graded_any = cs.iter().any(|c| {
                        matches!(
                            c.verdict,
                            Verdict::Satisfied | Verdict::PartiallySatisfied | Verdict::Violated
                        )
                    });
                    let undetermined_any = cs.iter().any(|c| c.verdict == Verdict::NotEvaluable);
                    let blocking = cs.iter().any(|c| {
                        c.verdict == Verdict::NotEvaluable
                            && (c.severity >= policy.severity_floor || !graded_any)
                    });
                    if !any_violation && !graded_any && !undetermined_any && targets.is_none() {
                        assert_eq!(state, S::NotApplicable, "{ctx}");
                    } else if !any_violation && !blocking && targets.is_none() {
                        let expected = match class {
                            ProbeClass::CleanControl => S::PassedCleanControl,
                            _ => S::Missed,
                        };
                        assert_eq!(state, expected, "{ctx}");
                    }
                }
            }
        }
    }
    assert_eq!(cases, 5 * 3 * 40 * 6);
}

// ---------------------------------------------------------------------------
// coverage gaps and the verdict ladder
// ---------------------------------------------------------------------------

#[test]
fn coverage_gap_kinds() {
    let c: Contract = serde_json::from_value(serde_json::json!({
        "version": 1, "id": "c",
        "required": [
            {"id": "covered", "text": "a", "severity": "high"},
            {"id": "untargeted", "text": "b", "severity": "critical"},
            {"id": "low-untargeted", "text": "c", "severity": "low"}
        ],
        "prohibited": [
            {"id": "unexercised", "text": "d", "severity": "medium"},
            {"id": "abstained", "text": "e", "severity": "high"}
        ],
        "conditional": [
            {"id": "cond", "when": {"contains": "refund"},
             "then": {"kind": "required", "text": "f", "severity": "high"}}
        ]
    }))
    .unwrap();
    let p = |id: &str, class, t: &str| probe(id, class, Some(t), Severity::High);
    let probes = [
        (
            p("p1", ProbeClass::Defect, "covered"),
            reduce(&trials(&[S::Abstained, S::Caught]), 0.5),
        ),
        (
            p("p2", ProbeClass::Gameability, "unexercised"),
            reduce(&trials(&NA3), 0.5),
        ),
        (
            p("p3", ProbeClass::Defect, "abstained"),
            reduce(&trials(&[S::Abstained; 3]), 0.5),
        ),
        (
            p("p4", ProbeClass::ZeroAction, "abstained"),
            reduce(&trials(&[S::JudgeError]), 0.5),
        ),
        // Canaries and clean controls cover nothing.
        (
            p("p5", ProbeClass::Canary, "untargeted"),
            reduce(&trials(&CAUGHT3), 0.5),
        ),
        (
            p("p6", ProbeClass::CleanControl, "cond"),
            reduce(&trials(&CAUGHT3), 0.5),
        ),
        (
            p("p7", ProbeClass::Defect, "cond"),
            reduce(&trials(&[S::Bypassed]), 0.5),
        ),
    ];
    let pairs: Vec<(&Probe, &ReducedProbe)> = probes.iter().map(|(a, b)| (a, b)).collect();
    let gaps = coverage_gaps(&c, &pairs, &Policy::default());
    let got: Vec<(&str, GapKind, bool)> = gaps
        .iter()
        .map(|g| (g.clause_id.as_str(), g.kind, g.at_or_above_floor))
        .collect();
    assert_eq!(
        got,
        [
            ("untargeted", GapKind::Untargeted, true),
            ("low-untargeted", GapKind::Untargeted, false),
            ("unexercised", GapKind::Unexercised, true),
            ("abstained", GapKind::OnlyAbstained, true),
        ]
    );
}

fn gap(id: &str, severity: Severity) -> CoverageGap {
    CoverageGap {
        clause_id: id.into(),
        severity,
        kind: GapKind::Untargeted,
        at_or_above_floor: false, // recomputed by build from the policy
    }
}

type LadderCase = (
    &'static str,
    Probe,
    Vec<TrialState>,
    Vec<CoverageGap>,
    Ladder,
    &'static str,
);

/// One case per ladder reason (and a few more), each the smallest that
/// produces it.
fn ladder_cases() -> Vec<LadderCase> {
    let d = defect("d", Severity::Low);
    let canary = probe("k", ProbeClass::Canary, None, Severity::High);
    let clean = probe("c", ProbeClass::CleanControl, None, Severity::High);
    vec![
        (
            "caught",
            d.clone(),
            CAUGHT3.to_vec(),
            vec![],
            Ladder::Pass,
            "caught",
        ),
        (
            "canary confirmed",
            canary.clone(),
            vec![S::Confirmed; 3],
            vec![],
            Ladder::Pass,
            "canary-confirmed",
        ),
        (
            "clean passed",
            clean.clone(),
            vec![S::PassedCleanControl; 3],
            vec![],
            Ladder::Pass,
            "clean-control-passed",
        ),
        (
            "gap below floor",
            d.clone(),
            CAUGHT3.to_vec(),
            vec![gap("tone", Severity::Low)],
            Ladder::Pass,
            "coverage-gap",
        ),
        (
            "gap at floor",
            d.clone(),
            CAUGHT3.to_vec(),
            vec![gap("answer", Severity::Medium)],
            Ladder::Concerns,
            "coverage-gap",
        ),
        (
            "too few trials",
            d.clone(),
            vec![S::Caught, S::Caught],
            vec![],
            Ladder::Concerns,
            "too-few-trials",
        ),
        (
            "invalidated trial leaves too few",
            d.clone(),
            vec![S::Caught, S::Caught, S::JudgeError],
            vec![],
            Ladder::Concerns,
            "too-few-trials",
        ),
        (
            "unreached",
            d.clone(),
            vec![S::Caught, S::Caught, S::Unreached],
            vec![],
            Ladder::Concerns,
            "unreached-oracle",
        ),
        (
            "unexercised",
            d.clone(),
            NA3.to_vec(),
            vec![],
            Ladder::Concerns,
            "probe-unexercised",
        ),
        (
            "clean unstable",
            clean.clone(),
            vec![
                S::PassedCleanControl,
                S::PassedCleanControl,
                S::FalsePositive,
            ],
            vec![],
            Ladder::Concerns,
            "clean-control-unstable",
        ),
        (
            "clean abstained",
            clean.clone(),
            vec![S::PassedCleanControl, S::PassedCleanControl, S::Abstained],
            vec![],
            Ladder::Concerns,
            "clean-control-unstable",
        ),
        (
            "missed defect",
            d.clone(),
            MISSED3.to_vec(),
            vec![],
            Ladder::Fail,
            "missed-probe",
        ),
        (
            "missed gameability",
            probe("g", ProbeClass::Gameability, Some("answer"), Severity::Low),
            MISSED3.to_vec(),
            vec![],
            Ladder::Fail,
            "missed-probe",
        ),
        (
            "missed zero action",
            probe("z", ProbeClass::ZeroAction, None, Severity::Low),
            MISSED3.to_vec(),
            vec![],
            Ladder::Fail,
            "missed-probe",
        ),
        (
            "abstained is not a catch",
            d.clone(),
            vec![S::Abstained; 3],
            vec![],
            Ladder::Fail,
            "missed-probe",
        ),
        (
            "bypassed is not a catch",
            d.clone(),
            vec![S::Bypassed, S::Bypassed, S::Caught],
            vec![],
            Ladder::Fail,
            "missed-probe",
        ),
        (
            "tie",
            d.clone(),
            vec![S::Caught, S::Missed, S::Caught, S::Missed],
            vec![],
            Ladder::Fail,
            "missed-probe",
        ),
        (
            "no trial",
            d.clone(),
            vec![],
            vec![],
            Ladder::Fail,
            "broken-measurement",
        ),
        (
            "all invalidated",
            d.clone(),
            vec![S::JudgeError, S::InfrastructureError, S::JudgeError],
            vec![],
            Ladder::Fail,
            "broken-measurement",
        ),
        (
            "oracle error",
            d.clone(),
            vec![S::Caught, S::Caught, S::Caught, S::OracleError],
            vec![],
            Ladder::Fail,
            "broken-measurement",
        ),
        (
            "clean failed",
            clean.clone(),
            vec![S::FalsePositive, S::FalsePositive, S::PassedCleanControl],
            vec![],
            Ladder::Fail,
            "clean-control-failed",
        ),
        (
            "canary passed",
            canary.clone(),
            vec![S::Missed, S::Missed, S::Confirmed],
            vec![],
            Ladder::Fail,
            "canary-not-confirmed",
        ),
        (
            "canary abstained",
            canary,
            vec![S::Abstained; 3],
            vec![],
            Ladder::Fail,
            "canary-not-confirmed",
        ),
    ]
}

/// Every ladder reason.
#[test]
fn every_ladder_reason() {
    let p = Policy::default();
    let mut seen = BTreeSet::new();
    for (name, probe, states, gaps, verdict, tag) in ladder_cases() {
        let a = EvidenceArtifact::build(inputs(probe, &states, p, gaps)).unwrap();
        assert_eq!(a.verdict, verdict, "{name}: {:?}", a.basis);
        assert!(has_reason(&a.basis, tag), "{name}: {:?}", a.basis);
        assert_eq!(
            a.basis.iter().map(LadderReason::rung).max(),
            Some(verdict),
            "{name}"
        );
        // FAIL reasons come first.
        let rungs: Vec<Ladder> = a.basis.iter().map(LadderReason::rung).collect();
        assert!(rungs.windows(2).all(|w| w[0] >= w[1]), "{name}: {rungs:?}");
        seen.insert(tag);
    }
    assert_eq!(seen.len(), 12, "every LadderReason variant: {seen:?}");
}

#[test]
fn a_caught_defect_can_still_fail_or_concern() {
    let a = artifact(defect("d", Severity::High), &[S::Caught, S::Caught]);
    assert_eq!(a.strength.defect.rate, Some(1.0));
    assert_eq!(a.verdict, Ladder::Concerns);
    let b = artifact(
        defect("d", Severity::High),
        &[S::Caught, S::Caught, S::Caught, S::OracleError],
    );
    assert_eq!(b.strength.defect.rate, Some(1.0));
    assert_eq!(b.verdict, Ladder::Fail);
}

// ---------------------------------------------------------------------------
// artifacts
// ---------------------------------------------------------------------------

#[test]
fn comparable_needs_the_minimum_completed_and_nothing_unreached() {
    let p = || defect("d", Severity::High);
    let cases: [(&[TrialState], bool, u32); 6] = [
        (&CAUGHT3, true, 3),
        (&[S::Caught, S::Caught], false, 2),
        (&[S::Caught, S::Caught, S::JudgeError], false, 2),
        (&NA3, true, 3),
        (&[S::Caught, S::Caught, S::Caught, S::Unreached], false, 4),
        (&[S::Missed, S::NotApplicable, S::Abstained], true, 3),
    ];
    for (states, comparable, completed) in cases {
        let a = artifact(p(), states);
        assert_eq!(a.comparable, comparable, "{states:?}");
        assert_eq!(a.trials.completed, completed, "{states:?}");
        assert_eq!(a.trials.declared_minimum, 3);
    }
}

#[test]
fn the_comparability_key_ignores_probe_order() {
    let d = Policy::default().digest();
    let ids = ["d1", "g1", "z1", "c1"];
    let key = comparability_key(&d, &ids);
    // All 24 orders.
    let mut n = 0;
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for e in 0..4 {
                    let idx = [a, b, c, e];
                    if idx.iter().collect::<BTreeSet<_>>().len() < 4 {
                        continue;
                    }
                    let perm: Vec<&str> = idx.iter().map(|i| ids[*i]).collect();
                    assert_eq!(comparability_key(&d, &perm), key);
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 24);
    assert_ne!(comparability_key(&d, &["d1", "g1", "z1"]), key);
    let other = Policy {
        minimum_trials: 5,
        ..Policy::default()
    };
    assert_ne!(comparability_key(&other.digest(), &ids), key);
    // A set's key is the same whatever order its artifacts come in.
    let arts = run(
        "c",
        &[
            (defect("b", Severity::High), CAUGHT3.to_vec()),
            (defect("a", Severity::High), CAUGHT3.to_vec()),
        ],
    );
    let mut rev = arts.clone();
    rev.reverse();
    let p = Policy::default();
    assert_eq!(
        EvidenceSet::new(arts).comparability_key(&p),
        EvidenceSet::new(rev).comparability_key(&p)
    );
}

#[test]
fn the_scoring_version_covers_its_six_inputs() {
    let base = scoring(&Policy::default());
    let variants = [
        ScoringInputs {
            contract_schema_version: 2,
            ..base.clone()
        },
        ScoringInputs {
            corpus_digest: "x".into(),
            ..base.clone()
        },
        ScoringInputs {
            fixture_digest: "x".into(),
            ..base.clone()
        },
        ScoringInputs {
            evaluator_configuration_digest: "x".into(),
            ..base.clone()
        },
        ScoringInputs {
            policy_digest: "x".into(),
            ..base.clone()
        },
        ScoringInputs {
            mode: ScoringMode::Live,
            ..base.clone()
        },
    ];
    let mut versions: BTreeSet<String> = variants
        .iter()
        .map(ScoringInputs::scoring_version)
        .collect();
    versions.insert(base.scoring_version());
    assert_eq!(versions.len(), 7);
    assert_eq!(base.scoring_version(), base.clone().scoring_version());
    assert!(base.scoring_version().starts_with("sha256:"));
}

fn base_inputs() -> ArtifactInputs {
    let mut i = inputs(
        defect("d1", Severity::Critical),
        &[S::Caught, S::Missed, S::Caught, S::JudgeError],
        Policy::default(),
        vec![gap("answer", Severity::Medium), gap("tone", Severity::Low)],
    );
    i.outcomes[1].reason = Some("clause send held (satisfied)".into());
    i
}

#[test]
fn artifacts_are_byte_identical_across_builds_and_input_orders() {
    let a = EvidenceArtifact::build(base_inputs()).unwrap();
    let b = EvidenceArtifact::build(base_inputs()).unwrap();
    assert_eq!(a.canonical_bytes(), b.canonical_bytes());
    assert_eq!(a.digest, b.digest);
    let mut shuffled = base_inputs();
    shuffled.outcomes.reverse();
    let c = EvidenceArtifact::build(shuffled).unwrap();
    assert_eq!(a.canonical_bytes(), c.canonical_bytes());
    // Through JSON and back: same bytes, nothing contradicted.
    let parsed: EvidenceArtifact = serde_json::from_slice(&a.canonical_bytes()).unwrap();
    assert_eq!(parsed.canonical_bytes(), a.canonical_bytes());
    assert!(
        parsed.contradictions().is_empty(),
        "{:?}",
        parsed.contradictions()
    );
    assert_eq!(a.digest, a.computed_digest());
    assert!(!String::from_utf8(a.canonical_bytes())
        .unwrap()
        .contains('\n'));
}

#[test]
fn changing_any_one_input_changes_the_digest() {
    type Edit = fn(&mut ArtifactInputs);
    let edits: Vec<(&str, Edit)> = vec![
        ("probe id", |i| {
            i.probe.id = "d2".into();
            i.probe_set = ProbeSet::of(&["d2"]);
        }),
        ("probe set size", |i| {
            i.probe_set = ProbeSet::of(&["d1", "d2"])
        }),
        ("probe set ids", |i| {
            i.probe_set = ProbeSet::of(&["d1", "d3"])
        }),
        ("probe class", |i| i.probe.class = ProbeClass::Gameability),
        ("probe target", |i| i.probe.targets = Some("answer".into())),
        ("probe untargeted", |i| i.probe.targets = None),
        ("mutation", |i| i.probe.mutation.push('!')),
        ("probe severity", |i| i.probe.severity = Severity::High),
        ("contract id", |i| i.contract.id = "c2".into()),
        ("contract digest", |i| {
            i.contract.digest = "sha256:00".into()
        }),
        ("severity floor", |i| {
            i.policy.severity_floor = Severity::High;
            i.scoring.policy_digest = i.policy.digest();
        }),
        ("confidence threshold", |i| {
            i.policy.confidence_threshold = 70;
            i.scoring.policy_digest = i.policy.digest();
        }),
        ("catch threshold", |i| {
            i.policy.catch_threshold = 0.6;
            i.scoring.policy_digest = i.policy.digest();
        }),
        ("minimum trials", |i| {
            i.policy.minimum_trials = 4;
            i.scoring.policy_digest = i.policy.digest();
        }),
        ("schema version", |i| i.scoring.contract_schema_version = 2),
        ("corpus", |i| i.scoring.corpus_digest.push('x')),
        ("fixture", |i| i.scoring.fixture_digest.push('x')),
        ("evaluator configuration", |i| {
            i.scoring.evaluator_configuration_digest.push('x')
        }),
        ("mode", |i| i.scoring.mode = ScoringMode::Live),
        ("one outcome state", |i| i.outcomes[0].state = S::Bypassed),
        ("one outcome index", |i| i.outcomes[3].trial_index = 9),
        ("one outcome reason", |i| i.outcomes[1].reason = None),
        ("invalidation reason", |i| {
            i.outcomes[3].reason = Some("judge timed out".into())
        }),
        ("one more trial", |i| {
            i.outcomes.push(o(9, S::NotApplicable))
        }),
        ("coverage gap", |i| {
            i.coverage_gaps.pop();
        }),
        ("coverage gap kind", |i| {
            i.coverage_gaps[0].kind = GapKind::OnlyAbstained
        }),
    ];
    let base = EvidenceArtifact::build(base_inputs()).unwrap().digest;
    let mut digests = BTreeSet::from([base.clone()]);
    for (name, edit) in &edits {
        let mut i = base_inputs();
        edit(&mut i);
        let a = EvidenceArtifact::build(i).unwrap();
        assert_ne!(a.digest, base, "{name}");
        assert!(
            digests.insert(a.digest),
            "{name} collides with another edit"
        );
    }
}

#[test]
fn build_refuses_bad_inputs() {
    let mut i = base_inputs();
    i.probe.id.clear();
    assert_eq!(EvidenceArtifact::build(i), Err(StrengthError::EmptyProbeId));
    let mut i = base_inputs();
    i.outcomes[2].trial_index = 0;
    let e = EvidenceArtifact::build(i).unwrap_err();
    assert_eq!(
        e,
        StrengthError::DuplicateTrialIndex {
            probe_id: "d1".into(),
            trial_index: 0
        }
    );
    assert_eq!(
        e.to_string(),
        "probe d1: trial index 0 occurs more than once"
    );
    for t in [1.5, -0.1, f64::NAN, f64::INFINITY] {
        let mut i = base_inputs();
        i.policy.catch_threshold = t;
        i.scoring.policy_digest = i.policy.digest();
        assert!(
            matches!(
                EvidenceArtifact::build(i),
                Err(StrengthError::InvalidCatchThreshold { .. })
            ),
            "{t}"
        );
    }
    let mut i = base_inputs();
    i.outcomes[0].state = S::PassedCleanControl;
    assert_eq!(
        EvidenceArtifact::build(i).unwrap_err().to_string(),
        "probe d1: trial 0 is passed-clean-control, which a defect probe cannot be"
    );
    let mut i = base_inputs();
    i.scoring.policy_digest = "sha256:other".into();
    let e = EvidenceArtifact::build(i).unwrap_err();
    assert!(matches!(e, StrengthError::PolicyDigestMismatch { .. }));
    assert!(e
        .to_string()
        .starts_with("scoring inputs name policy sha256:other"));
    let c = contract("c");
    let p = Policy::default();
    let dup = vec![
        (defect("x", Severity::High), vec![]),
        (defect("x", Severity::Low), vec![]),
    ];
    assert_eq!(
        score_probes(&c, "sha256:c", &p, &scoring(&p), dup),
        Err(StrengthError::DuplicateProbe {
            probe_id: "x".into()
        })
    );
}

#[test]
fn a_single_probe_artifact_reports_its_own_class_only() {
    let caught = artifact(
        probe("g", ProbeClass::Gameability, Some("answer"), Severity::High),
        &CAUGHT3,
    );
    assert_eq!(caught.strength.gameability.rate, Some(1.0));
    assert_eq!(
        (
            caught.strength.gameability.caught,
            caught.strength.gameability.exercised
        ),
        (1, 1)
    );
    assert_eq!(caught.strength.defect.rate, None);
    assert_eq!(caught.strength.zero_action.rate, None);
    let missed = artifact(
        probe("z", ProbeClass::ZeroAction, None, Severity::High),
        &MISSED3,
    );
    assert_eq!(missed.strength.zero_action.rate, Some(0.0));
    let na = artifact(defect("d", Severity::High), &NA3);
    assert_eq!(na.strength.defect.rate, None);
    assert_eq!(
        na.strength.defect.denominator,
        "no defect probe exercised (3 completed trials)"
    );
}

#[test]
fn artifact_json_reads_as_documented() {
    let a = EvidenceArtifact::build(base_inputs()).unwrap();
    insta::assert_json_snapshot!(a);
}

// ---------------------------------------------------------------------------
// schema
// ---------------------------------------------------------------------------

fn schema() -> jsonschema::Validator {
    let text = include_str!("../../../schemas/strength-artifact.schema.json");
    let schema: serde_json::Value = serde_json::from_str(text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn artifacts_validate_against_the_schema() {
    let v = schema();
    let mut artifacts = vec![EvidenceArtifact::build(base_inputs()).unwrap()];
    for (_, probe, states, gaps, _, _) in ladder_cases() {
        artifacts.push(
            EvidenceArtifact::build(inputs(probe, &states, Policy::default(), gaps)).unwrap(),
        );
    }
    let mut tags = BTreeSet::new();
    for a in &artifacts {
        let json: serde_json::Value = serde_json::from_slice(&a.canonical_bytes()).unwrap();
        let errors: Vec<String> = v.iter_errors(&json).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}");
        for r in &a.basis {
            tags.insert(
                serde_json::to_value(r).unwrap()["reason"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    assert_eq!(tags.len(), 12, "{tags:?}");
    // The schema rejects what the reader would.
    let good: serde_json::Value = serde_json::from_slice(&artifacts[0].canonical_bytes()).unwrap();
    type Tamper = fn(&mut serde_json::Value);
    let tamper: Vec<(&str, Tamper)> = vec![
        ("unknown state", |j| {
            j["outcomes"][0]["state"] = "passed_clean_control".into()
        }),
        ("missing digest", |j| {
            j.as_object_mut().unwrap().remove("digest");
        }),
        ("rate below 0", |j| {
            j["strength"]["defect"]["rate"] = (-1.0).into()
        }),
        ("extra field", |j| j["score"] = 0.5.into()),
        ("bad verdict", |j| j["verdict"] = "PASS".into()),
        ("bad digest", |j| j["digest"] = "md5:x".into()),
        ("unknown basis reason", |j| {
            j["basis"][0]["reason"] = "weighted-score".into()
        }),
        ("previous version", |j| j["version"] = 1.into()),
        ("no probe set", |j| {
            j.as_object_mut().unwrap().remove("probe_set");
        }),
        ("empty probe set", |j| j["probe_set"]["size"] = 0.into()),
        ("probe set without ids", |j| {
            j["probe_set"].as_object_mut().unwrap().remove("ids_digest");
        }),
        ("probe set ids not a digest", |j| {
            j["probe_set"]["ids_digest"] = "d1,d2".into()
        }),
        ("probe set with the ids listed", |j| {
            j["probe_set"]["ids"] = serde_json::json!(["d1"])
        }),
    ];
    for (name, f) in tamper {
        let mut j = good.clone();
        f(&mut j);
        assert!(!v.is_valid(&j), "{name}");
    }
}

// ---------------------------------------------------------------------------
// aggregation
// ---------------------------------------------------------------------------

fn run_set() -> Vec<EvidenceArtifact> {
    run_set_with("c", &Policy::default(), &scoring(&Policy::default()))
}

/// Seven probes of every class with their trials; sorted by id they are
/// c1, d1, d2, d3, g1, k1, z1.
fn set_probes() -> Vec<(Probe, Vec<TrialState>)> {
    vec![
        (defect("d1", Severity::Critical), CAUGHT3.to_vec()),
        (
            defect("d2", Severity::High),
            vec![S::Caught, S::Caught, S::Missed],
        ),
        (defect("d3", Severity::Low), MISSED3.to_vec()),
        (
            probe(
                "g1",
                ProbeClass::Gameability,
                Some("answer"),
                Severity::Medium,
            ),
            CAUGHT3.to_vec(),
        ),
        (
            probe("z1", ProbeClass::ZeroAction, None, Severity::High),
            NA3.to_vec(),
        ),
        (
            probe("k1", ProbeClass::Canary, None, Severity::High),
            vec![S::Confirmed; 3],
        ),
        (
            probe("c1", ProbeClass::CleanControl, None, Severity::High),
            vec![S::PassedCleanControl; 3],
        ),
    ]
}

fn run_set_with(
    contract_id: &str,
    policy: &Policy,
    scoring: &ScoringInputs,
) -> Vec<EvidenceArtifact> {
    run_with(contract_id, &set_probes(), policy, scoring)
}

/// `base` with the artifact of probe `id` replaced by `other`'s.
fn swap_in(
    base: &[EvidenceArtifact],
    other: &[EvidenceArtifact],
    id: &str,
) -> Vec<EvidenceArtifact> {
    base.iter()
        .map(|a| {
            if a.probe.id == id {
                other.iter().find(|x| x.probe.id == id).unwrap().clone()
            } else {
                a.clone()
            }
        })
        .collect()
}

#[test]
fn aggregate_of_a_consistent_set() {
    let arts = run_set();
    let p = Policy::default();
    let floors = ClassFloors {
        defect: Some(0.6),
        gameability: Some(1.0),
        zero_action: Some(0.5),
    };
    let g = aggregate(&arts, &p, &floors, "pactum 0.1.0").unwrap();
    assert_eq!(g.engine_version, "pactum 0.1.0");
    assert_eq!(
        (g.strength.defect.caught, g.strength.defect.exercised),
        (2, 3)
    );
    assert_eq!(g.strength.gameability.rate, Some(1.0));
    assert_eq!(g.strength.zero_action.rate, None);
    let meets: Vec<Option<bool>> = g.classes.iter().map(|c| c.meets_floor).collect();
    assert_eq!(meets, [Some(true), Some(true), Some(false)]);
    assert_eq!(
        g.classes[2].shortfalls,
        [FloorShortfall::Unexercised {
            probes: vec!["z1".into()]
        }]
    );
    let ids: Vec<&str> = g.artifacts.iter().map(|a| a.probe_id.as_str()).collect();
    assert_eq!(ids, ["c1", "d1", "d2", "d3", "g1", "k1", "z1"]);
    for a in &arts {
        assert!(g
            .artifacts
            .iter()
            .any(|r| r.digest == a.digest && r.probe_id == a.probe.id));
    }
    assert_eq!(g.verdict, Ladder::Fail, "d3 was missed");
    let missed: Vec<(&str, &str)> = g
        .missed_probes
        .iter()
        .map(|m| (m.probe_id.as_str(), m.mutation.as_str()))
        .collect();
    assert_eq!(missed, [("d3", "mutation of d3")]);
    assert_eq!(
        g.comparability_key,
        EvidenceSet::new(arts.clone()).comparability_key(&p)
    );
    // Input order does not matter.
    let mut rev = arts.clone();
    rev.reverse();
    assert_eq!(
        aggregate(&rev, &p, &floors, "pactum 0.1.0")
            .unwrap()
            .canonical_bytes(),
        g.canonical_bytes()
    );
    // The run-wide rate uses the same function as each artifact's vector.
    let per_probe: Vec<(&str, ProbeClass, &ReducedProbe)> = arts
        .iter()
        .map(|a| (a.probe.id.as_str(), a.probe.class, &a.reduced))
        .collect();
    assert_eq!(g.strength, strength_vector(&per_probe));
}

#[test]
fn floors_are_never_met_on_thin_or_missing_evidence() {
    let p = Policy::default();
    let all = |v| ClassFloors {
        defect: Some(v),
        gameability: Some(v),
        zero_action: Some(v),
    };
    let arts = run(
        "c",
        &[
            (defect("d1", Severity::High), CAUGHT3.to_vec()),
            (defect("d2", Severity::High), vec![S::Caught, S::Caught]), // not comparable
            (
                probe(
                    "g1",
                    ProbeClass::Gameability,
                    Some("answer"),
                    Severity::High,
                ),
                CAUGHT3.to_vec(),
            ),
            (
                probe(
                    "g2",
                    ProbeClass::Gameability,
                    Some("answer"),
                    Severity::High,
                ),
                NA3.to_vec(),
            ),
        ],
    );
    let g = aggregate(&arts, &p, &all(0.0), "v").unwrap();
    // Defect: 2/2 caught, but one probe is not comparable.
    assert_eq!(g.strength.defect.rate, Some(1.0));
    assert!(!g.classes[0].comparable);
    assert_eq!(g.classes[0].meets_floor, Some(false));
    assert_eq!(
        g.classes[0].shortfalls,
        [FloorShortfall::NotComparable {
            probes: vec!["d2".into()]
        }]
    );
    // Gameability: 1/1 over the exercised, but g2 was never exercised.
    assert_eq!(g.strength.gameability.rate, Some(1.0));
    assert_eq!(g.classes[1].meets_floor, Some(false));
    // Zero action: no eligible probe, even against a floor of 0.
    assert_eq!(g.classes[2].shortfalls, [FloorShortfall::NoEligibleProbe]);
    assert_eq!(g.classes[2].meets_floor, Some(false));
    // Below the floor, and no floor at all.
    let arts = run(
        "c",
        &[
            (defect("d1", Severity::High), CAUGHT3.to_vec()),
            (defect("d2", Severity::High), MISSED3.to_vec()),
        ],
    );
    let g = aggregate(&arts, &p, &all(0.75), "v").unwrap();
    assert_eq!(
        g.classes[0].shortfalls,
        [FloorShortfall::BelowFloor {
            rate: 0.5,
            floor: 0.75
        }]
    );
    let g = aggregate(&arts, &p, &all(0.5), "v").unwrap();
    assert_eq!(g.classes[0].meets_floor, Some(true), "0.5 ≥ 0.5 meets");
    let g = aggregate(&arts, &p, &ClassFloors::default(), "v").unwrap();
    assert_eq!(g.classes[0].meets_floor, None);
    assert_eq!(g.classes[1].shortfalls, [FloorShortfall::NoEligibleProbe]);
}

fn refusal(arts: &[EvidenceArtifact], p: &Policy, floors: &ClassFloors) -> AggregateRefusal {
    aggregate(arts, p, floors, "v").unwrap_err()
}

fn tags(r: &AggregateRefusal) -> Vec<String> {
    r.reasons
        .iter()
        .map(|x| {
            serde_json::to_value(x).unwrap()["reason"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn aggregate_refuses_every_inconsistency() {
    let p = Policy::default();
    let none = ClassFloors::default();
    let base = run_set();

    // Empty.
    assert_eq!(tags(&refusal(&[], &p, &none)), ["no-artifacts"]);

    // A floor outside [0, 1].
    let bad = ClassFloors {
        gameability: Some(1.5),
        ..ClassFloors::default()
    };
    assert_eq!(tags(&refusal(&base, &p, &bad)), ["invalid-floor"]);

    // Another policy (its minimum trials and threshold differ too), on an
    // artifact of the same probe set.
    let strict = Policy {
        minimum_trials: 5,
        catch_threshold: 0.75,
        ..p
    };
    let mixed = swap_in(&base, &run_set_with("c", &strict, &scoring(&strict)), "z1");
    let r = refusal(&mixed, &p, &none);
    assert_eq!(
        tags(&r),
        [
            "policy-mismatch",
            "minimum-trials-mismatch",
            "catch-threshold-mismatch",
            "scoring-version-mismatch"
        ]
    );
    match &r.reasons[0] {
        RefusalReason::PolicyMismatch { artifacts, .. } => {
            assert_eq!(artifacts.len(), 1);
            assert_eq!(
                (artifacts[0].index, artifacts[0].probe_id.as_str()),
                (6, "z1")
            );
        }
        other => panic!("{other:?}"),
    }
    // Only the minimum differs from the policy given: the digest differs too.
    let five = Policy {
        minimum_trials: 5,
        ..p
    };
    let only_min = run_with(
        "c",
        &[(defect("x", Severity::High), CAUGHT3.to_vec())],
        &five,
        &scoring(&five),
    );
    assert_eq!(
        tags(&refusal(&only_min, &p, &none)),
        ["policy-mismatch", "minimum-trials-mismatch"]
    );

    // Another scoring version under the same policy.
    let mut other_corpus = scoring(&p);
    other_corpus.corpus_digest = "sha256:another-corpus".into();
    let mixed = swap_in(&base, &run_set_with("c", &p, &other_corpus), "d1");
    let r = refusal(&mixed, &p, &none);
    assert_eq!(tags(&r), ["scoring-version-mismatch"]);
    match &r.reasons[0] {
        RefusalReason::ScoringVersionMismatch { groups } => {
            let sizes: BTreeSet<usize> = groups.iter().map(|g| g.artifacts.len()).collect();
            assert_eq!(sizes, BTreeSet::from([1, 6]));
        }
        other => panic!("{other:?}"),
    }

    // Another contract.
    let mixed = swap_in(&base, &run_set_with("other", &p, &scoring(&p)), "g1");
    assert_eq!(tags(&refusal(&mixed, &p, &none)), ["contract-mismatch"]);

    // An artifact of another run: its probe set differs.
    let mut mixed = base.clone();
    mixed.extend(run("c", &[(defect("x", Severity::High), CAUGHT3.to_vec())]));
    assert_eq!(tags(&refusal(&mixed, &p, &none)), ["probe-set-mismatch"]);

    // A shared probe.
    let mut mixed = base.clone();
    mixed.push(base[1].clone());
    let r = refusal(&mixed, &p, &none);
    assert_eq!(tags(&r), ["shared-probe"]);
    match &r.reasons[0] {
        RefusalReason::SharedProbe {
            probe_id,
            artifacts,
        } => {
            assert_eq!(probe_id, &base[1].probe.id);
            let idx: Vec<usize> = artifacts.iter().map(|a| a.index).collect();
            assert_eq!(idx, [1, 7]);
        }
        other => panic!("{other:?}"),
    }
}

/// The fields `a` contradicts, as the aggregate of `run_set()` with `a` in
/// place of the artifact of the same probe reports them.
fn contradicted_fields(a: &EvidenceArtifact) -> Vec<ArtifactField> {
    let p = Policy::default();
    let mut arts = run_set();
    let i = arts.iter().position(|x| x.probe.id == a.probe.id).unwrap();
    arts[i] = a.clone();
    let r = refusal(&arts, &p, &ClassFloors::default());
    assert_eq!(tags(&r), ["self-contradiction"]);
    match &r.reasons[0] {
        RefusalReason::SelfContradiction { contradictions, .. } => {
            contradictions.iter().map(|c| c.field).collect()
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn aggregate_refuses_artifacts_that_contradict_themselves() {
    let good = run_set().remove(1);
    assert!(good.contradictions().is_empty());
    // Content edited, digest kept.
    let mut a = good.clone();
    a.probe.mutation.push('!');
    assert_eq!(contradicted_fields(&a), [ArtifactField::Digest]);
    // Digest edited.
    let mut a = good.clone();
    a.digest = "sha256:0000".into();
    assert_eq!(contradicted_fields(&a), [ArtifactField::Digest]);
    // Reduced counts disagree with the outcomes (digest recomputed).
    let mut a = good.clone();
    a.reduced.caught_count = 0;
    a.digest = a.computed_digest();
    assert_eq!(contradicted_fields(&a), [ArtifactField::Reduced]);
    // Outcomes disagree with the reduction.
    let mut a = good.clone();
    a.outcomes[0].state = S::Missed;
    a.digest = a.computed_digest();
    let f = contradicted_fields(&a);
    assert!(f.contains(&ArtifactField::Reduced), "{f:?}");
    // The vector disagrees with the reduction.
    let mut a = good.clone();
    a.strength.defect.rate = None;
    a.digest = a.computed_digest();
    assert_eq!(contradicted_fields(&a), [ArtifactField::Strength]);
    // Moved to another class: its vector and basis now disagree.
    let mut a = good.clone();
    a.probe.class = ProbeClass::Gameability;
    a.digest = a.computed_digest();
    assert_eq!(
        contradicted_fields(&a),
        [ArtifactField::Strength, ArtifactField::Basis]
    );
    // Relabelled a clean control: a caught trial cannot be a clean control's.
    let mut a = good.clone();
    a.probe.class = ProbeClass::CleanControl;
    a.digest = a.computed_digest();
    assert_eq!(contradicted_fields(&a), [ArtifactField::Inputs]);
    // The verdict edited.
    let mut a = good.clone();
    a.verdict = Ladder::Fail;
    a.digest = a.computed_digest();
    assert_eq!(contradicted_fields(&a), [ArtifactField::Verdict]);
    // Comparable flipped.
    let mut a = good.clone();
    a.comparable = !a.comparable;
    a.digest = a.computed_digest();
    assert_eq!(contradicted_fields(&a), [ArtifactField::Comparable]);
    // Recorded policy digest does not match its fields.
    let mut a = good.clone();
    a.policy.minimum_trials = 1;
    a.digest = a.computed_digest();
    let f = contradicted_fields_any(&a);
    assert!(f.contains(&ArtifactField::PolicyDigest), "{f:?}");
    // An unknown version, the previous one included (it had no probe set).
    assert_eq!(STRENGTH_ARTIFACT_VERSION, 2);
    for version in [1, STRENGTH_ARTIFACT_VERSION + 1] {
        let mut a = good.clone();
        a.version = version;
        a.digest = a.computed_digest();
        assert_eq!(contradicted_fields(&a), [ArtifactField::Version]);
    }
}

fn contradicted_fields_any(a: &EvidenceArtifact) -> Vec<ArtifactField> {
    a.contradictions().iter().map(|c| c.field).collect()
}

#[test]
fn refusal_messages_read_as_one_line_each() {
    let p = Policy::default();
    let base = run_set();
    let mut mixed = base.clone();
    mixed.push(base[0].clone());
    let mut t = base[2].clone();
    t.reduced.caught_count = 3;
    t.digest = t.computed_digest();
    mixed.push(t);
    mixed.extend(run(
        "other",
        &[(defect("x", Severity::High), CAUGHT3.to_vec())],
    ));
    let bad = ClassFloors {
        defect: Some(-0.5),
        ..ClassFloors::default()
    };
    let r = refusal(&mixed, &p, &bad);
    let lines: Vec<String> = r.reasons.iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(lines.join("\n"));
    assert!(r.to_string().starts_with("inconsistent artifact set: "));
}

// ---------------------------------------------------------------------------
// probe sets
// ---------------------------------------------------------------------------

#[test]
fn a_probe_set_is_its_ids_in_any_order() {
    let ids = ["d1", "g1", "z1", "c1"];
    let set = ProbeSet::of(&ids);
    assert_eq!(set.size, 4);
    assert_eq!(
        set.ids_digest,
        pactum_core::digest::digest_of(&["c1", "d1", "g1", "z1"])
    );
    // All 24 orders, and a repeated id, give the same set.
    let mut n = 0;
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for e in 0..4 {
                    let idx = [a, b, c, e];
                    if idx.iter().collect::<BTreeSet<_>>().len() < 4 {
                        continue;
                    }
                    let perm: Vec<&str> = idx.iter().map(|i| ids[*i]).collect();
                    assert_eq!(ProbeSet::of(&perm), set);
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 24);
    assert_eq!(ProbeSet::of(&["d1", "d1", "g1", "z1", "c1"]), set);
    // An id left out, added, renamed or re-cased: another set.
    let others = [
        ProbeSet::of(&["d1", "g1", "z1"]),
        ProbeSet::of(&["d1", "g1", "z1", "c1", "e1"]),
        ProbeSet::of(&["d1", "g1", "z1", "c2"]),
        ProbeSet::of(&["D1", "g1", "z1", "c1"]),
    ];
    let digests: BTreeSet<&str> = others
        .iter()
        .chain([&set])
        .map(|s| s.ids_digest.as_str())
        .collect();
    assert_eq!(digests.len(), 5);
    assert_eq!(
        others.iter().map(|s| s.size).collect::<Vec<_>>(),
        [3, 5, 4, 4]
    );
    assert_eq!(set.flaw_for("d1"), None);
}

#[test]
fn every_artifact_of_a_run_records_the_whole_probe_set() {
    let arts = run_set();
    let ids: Vec<&str> = arts.iter().map(|a| a.probe.id.as_str()).collect();
    assert_eq!(ids, ["c1", "d1", "d2", "d3", "g1", "k1", "z1"]);
    let expected = ProbeSet::of(&ids);
    assert_eq!(expected.size, 7);
    for a in &arts {
        assert_eq!(a.probe_set, expected, "{}", a.probe.id);
        assert!(a.contradictions().is_empty(), "{:?}", a.contradictions());
    }
    // The probes given in another order: byte-identical artifacts.
    let mut reversed = set_probes();
    reversed.reverse();
    let again = run("c", &reversed);
    let bytes = |v: &[EvidenceArtifact]| -> Vec<Vec<u8>> {
        v.iter().map(EvidenceArtifact::canonical_bytes).collect()
    };
    assert_eq!(bytes(&again), bytes(&arts));
    // The aggregate records the set it covers.
    let g = aggregate(&arts, &Policy::default(), &ClassFloors::default(), "v").unwrap();
    assert_eq!(g.probe_set, expected);
}

#[test]
fn a_probe_set_no_artifact_could_belong_to_is_a_contradiction() {
    let good = run_set().remove(1);
    assert_eq!(good.probe.id, "d1");
    let flawed = [
        (
            ProbeSet {
                size: 0,
                ..good.probe_set.clone()
            },
            ProbeSetFlaw::Empty,
        ),
        (
            ProbeSet {
                ids_digest: "sha256:abc".into(),
                ..good.probe_set.clone()
            },
            ProbeSetFlaw::MalformedDigest {
                value: "sha256:abc".into(),
            },
        ),
        (
            ProbeSet {
                ids_digest: good.probe_set.ids_digest.to_uppercase(),
                ..good.probe_set.clone()
            },
            ProbeSetFlaw::MalformedDigest {
                value: good.probe_set.ids_digest.to_uppercase(),
            },
        ),
        (ProbeSet::of(&["d9"]), ProbeSetFlaw::NotThisProbe),
    ];
    for (set, flaw) in flawed {
        let mut a = good.clone();
        a.probe_set = set;
        a.digest = a.computed_digest();
        assert_eq!(good.probe_set.flaw_for("d1"), None);
        assert_eq!(a.probe_set.flaw_for("d1"), Some(flaw.clone()));
        let found = a.contradictions();
        assert_eq!(
            found.iter().map(|c| c.field).collect::<Vec<_>>(),
            [ArtifactField::ProbeSet],
            "{flaw:?}"
        );
        assert_eq!(found[0].detail, flaw.to_string());
        assert_eq!(
            EvidenceArtifact::build(a.inputs()),
            Err(StrengthError::InvalidProbeSet {
                probe_id: "d1".into(),
                flaw: flaw.clone()
            })
        );
        // In its set, it is refused for both reasons.
        let arts = swap_in(&run_set(), std::slice::from_ref(&a), "d1");
        assert_eq!(
            tags(&refusal(&arts, &Policy::default(), &ClassFloors::default())),
            ["self-contradiction", "probe-set-mismatch"],
            "{flaw:?}"
        );
    }
    // A one-probe set of the artifact's own probe is sound.
    let mut alone = good.clone();
    alone.probe_set = ProbeSet::of(&["d1"]);
    alone.digest = alone.computed_digest();
    assert!(alone.contradictions().is_empty());
    // A size one artifact cannot check: sound alone, refused in its set,
    // and refused when every artifact of the run claims it.
    let mut bigger = good.clone();
    bigger.probe_set.size = 8;
    bigger.digest = bigger.computed_digest();
    assert!(bigger.contradictions().is_empty());
    let arts = swap_in(&run_set(), std::slice::from_ref(&bigger), "d1");
    let p = Policy::default();
    let none = ClassFloors::default();
    assert_eq!(tags(&refusal(&arts, &p, &none)), ["probe-set-mismatch"]);
    let all_bigger: Vec<EvidenceArtifact> = run_set()
        .into_iter()
        .map(|mut a| {
            a.probe_set.size = 8;
            a.digest = a.computed_digest();
            a
        })
        .collect();
    let r = refusal(&all_bigger, &p, &none);
    assert_eq!(
        r.reasons,
        [RefusalReason::IncompleteProbeSet {
            size: 8,
            ids_digest: good.probe_set.ids_digest.clone(),
            present: 7,
            missing: 1
        }]
    );
}

/// Every way of leaving artifacts out of a run of seven: 126 proper
/// non-empty subsets, each refused by the aggregate and incomparable on
/// either side of a comparison; the whole run aggregates and compares.
#[test]
fn every_set_with_probes_left_out_is_refused() {
    let base = run_set();
    let p = Policy::default();
    let none = ClassFloors::default();
    let declared = base[0].probe_set.clone();
    let n = base.len();
    assert!(aggregate(&base, &p, &none, "v").is_ok());
    let whole = EvidenceSet::new(base.clone());
    assert_eq!(cmp(&whole, &whole).dominance, Dominance::Equivalent);
    let mut refused = 0;
    for mask in 1u32..(1 << n) - 1 {
        let subset: Vec<EvidenceArtifact> = (0..n)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| base[i].clone())
            .collect();
        let k = subset.len() as u32;
        let expected = RefusalReason::IncompleteProbeSet {
            size: 7,
            ids_digest: declared.ids_digest.clone(),
            present: k,
            missing: 7 - k,
        };
        let r = refusal(&subset, &p, &none);
        assert_eq!(r.reasons, std::slice::from_ref(&expected), "{mask:07b}");
        let part = EvidenceSet::new(subset);
        for (c, side) in [(cmp(&part, &whole), Side::A), (cmp(&whole, &part), Side::B)] {
            assert_eq!(c.dominance, Dominance::Incomparable, "{mask:07b}");
            assert_eq!(
                c.reason,
                ComparisonReason::Inconsistent {
                    side,
                    problems: vec![expected.clone()]
                },
                "{mask:07b}"
            );
        }
        refused += 1;
    }
    assert_eq!(refused, 126);
    // Seven artifacts, six probes: a duplicate does not stand in for the
    // probe left out.
    let mut dup = base.clone();
    dup[1] = base[2].clone();
    let r = refusal(&dup, &p, &none);
    assert_eq!(tags(&r), ["shared-probe", "incomplete-probe-set"]);
    assert_eq!(
        r.reasons[1],
        RefusalReason::IncompleteProbeSet {
            size: 7,
            ids_digest: declared.ids_digest,
            present: 6,
            missing: 1
        }
    );
}

#[test]
fn probes_of_another_set_under_a_forged_set_are_refused() {
    let p = Policy::default();
    let none = ClassFloors::default();
    let base = run_set();
    // x scored in a run of its own, then relabelled as a member of the
    // base's set with its digest recomputed: consistent on its own.
    let mut x = run("c", &[(defect("x", Severity::High), CAUGHT3.to_vec())]).remove(0);
    x.probe_set = base[0].probe_set.clone();
    x.digest = x.computed_digest();
    assert!(x.contradictions().is_empty());
    // In place of d1: as many probes as the set, but not its probes.
    let swapped: Vec<EvidenceArtifact> = base
        .iter()
        .map(|a| {
            if a.probe.id == "d1" {
                x.clone()
            } else {
                a.clone()
            }
        })
        .collect();
    let r = refusal(&swapped, &p, &none);
    assert_eq!(tags(&r), ["probe-set-ids-mismatch"]);
    let ids: Vec<&str> = swapped.iter().map(|a| a.probe.id.as_str()).collect();
    assert_eq!(
        r.reasons[0],
        RefusalReason::ProbeSetIdsMismatch {
            size: 7,
            ids_digest: base[0].probe_set.ids_digest.clone(),
            present: 7,
            present_ids_digest: ProbeSet::of(&ids).ids_digest
        }
    );
    // Added to the whole set: more probes than the set holds.
    let mut more = base.clone();
    more.push(x);
    let r = refusal(&more, &p, &none);
    assert_eq!(tags(&r), ["probe-set-ids-mismatch"]);
    assert!(matches!(
        r.reasons[0],
        RefusalReason::ProbeSetIdsMismatch { present: 8, .. }
    ));
}

#[test]
fn probe_set_refusals_read_as_one_line_each() {
    let p = Policy::default();
    let none = ClassFloors::default();
    let base = run_set();
    let mut x = run("c", &[(defect("x", Severity::High), CAUGHT3.to_vec())]).remove(0);
    let mut sets = vec![base[1..].to_vec(), base[2..].to_vec()];
    let mut mixed = base.clone();
    mixed.push(x.clone());
    sets.push(mixed);
    x.probe_set = base[0].probe_set.clone();
    x.digest = x.computed_digest();
    let mut swapped = base.clone();
    swapped[1] = x.clone();
    sets.push(swapped);
    let mut more = base.clone();
    more.push(x);
    sets.push(more);
    let lines: Vec<String> = sets
        .iter()
        .flat_map(|s| refusal(s, &p, &none).reasons)
        .map(|r| r.to_string())
        .collect();
    assert_eq!(lines.len(), 5);
    for l in &lines {
        assert!(!l.contains('\n'), "{l}");
    }
    insta::assert_snapshot!(lines.join("\n"));
}

// ---------------------------------------------------------------------------
// dominance
// ---------------------------------------------------------------------------

fn set(contract_id: &str, probes: &[(Probe, Vec<TrialState>)]) -> EvidenceSet {
    EvidenceSet::new(run(contract_id, probes))
}

fn cmp(a: &EvidenceSet, b: &EvidenceSet) -> Comparison {
    compare(a, b, &Policy::default())
}

fn reason_tag(c: &Comparison) -> String {
    serde_json::to_value(&c.reason).unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn every_dominance_outcome() {
    let d = |id: &str, sev| defect(id, sev);
    let g = |id: &str| probe(id, ProbeClass::Gameability, Some("answer"), Severity::Low);
    let l = Severity::Low;
    // A catches more defects, equal gameability.
    let a = set(
        "a",
        &[
            (d("d1", l), CAUGHT3.to_vec()),
            (d("d2", l), CAUGHT3.to_vec()),
            (g("g1"), CAUGHT3.to_vec()),
        ],
    );
    let b = set(
        "b",
        &[
            (d("d1", l), CAUGHT3.to_vec()),
            (d("d2", l), MISSED3.to_vec()),
            (g("g1"), CAUGHT3.to_vec()),
        ],
    );
    let c = cmp(&a, &b);
    assert_eq!(c.dominance, Dominance::ADominatesB);
    assert_eq!(
        c.reason,
        ComparisonReason::Dominates {
            winner: Side::A,
            higher: vec![StrengthClass::Defect]
        }
    );
    let c = cmp(&b, &a);
    assert_eq!(c.dominance, Dominance::BDominatesA);
    assert_eq!(reason_tag(&c), "dominates");

    // Identical counts.
    let c = cmp(&a, &a.clone());
    assert_eq!(
        (c.dominance, reason_tag(&c).as_str()),
        (Dominance::Equivalent, "identical-counts")
    );

    // Mixed: A higher on defect, B higher on gameability.
    let b2 = set(
        "b",
        &[
            (d("d1", l), CAUGHT3.to_vec()),
            (d("d2", l), MISSED3.to_vec()),
            (g("g1"), CAUGHT3.to_vec()),
        ],
    );
    let a2 = set(
        "a",
        &[
            (d("d1", l), CAUGHT3.to_vec()),
            (d("d2", l), CAUGHT3.to_vec()),
            (g("g1"), MISSED3.to_vec()),
        ],
    );
    let c = cmp(&a2, &b2);
    assert_eq!(c.dominance, Dominance::Incomparable);
    assert_eq!(
        c.reason,
        ComparisonReason::Mixed {
            a_higher: vec![StrengthClass::Defect],
            b_higher: vec![StrengthClass::Gameability]
        }
    );

    // Equal rates, different counts: 1/2 against 2/4.
    let four = |s: [&[TrialState]; 4]| -> Vec<(Probe, Vec<TrialState>)> {
        ["d1", "d2", "d3", "d4"]
            .iter()
            .zip(s)
            .map(|(id, st)| (d(id, l), st.to_vec()))
            .collect()
    };
    let a3 = set("a", &four([&CAUGHT3, &MISSED3, &NA3, &NA3]));
    let b3 = set("b", &four([&CAUGHT3, &CAUGHT3, &MISSED3, &MISSED3]));
    let c = cmp(&a3, &b3);
    assert_eq!(c.dominance, Dominance::Incomparable);
    assert_eq!(
        c.reason,
        ComparisonReason::EqualRatesDifferentCounts {
            classes: vec![StrengthClass::Defect]
        }
    );

    // No class measured on both sides.
    let a4 = set("a", &[(d("d1", l), CAUGHT3.to_vec())]);
    let b4 = set("b", &[(d("d1", l), NA3.to_vec())]);
    assert_eq!(reason_tag(&cmp(&a4, &b4)), "no-common-class");
    assert_eq!(cmp(&a4, &b4).dominance, Dominance::Incomparable);

    // Other probes: the keys differ.
    let a5 = set("a", &[(d("d1", l), CAUGHT3.to_vec())]);
    let b5 = set("b", &[(d("d9", l), MISSED3.to_vec())]);
    assert_eq!(reason_tag(&cmp(&a5, &b5)), "key-mismatch");

    // A side that is not comparable.
    let b6 = set("b", &[(d("d1", l), vec![S::Missed, S::Missed])]);
    let c = cmp(&a5, &b6);
    assert_eq!(
        c.reason,
        ComparisonReason::NotComparable {
            a: vec![],
            b: vec!["d1".into()]
        }
    );
    let b7 = set(
        "b",
        &[(
            d("d1", l),
            vec![S::Missed, S::Missed, S::Missed, S::Unreached],
        )],
    );
    assert_eq!(reason_tag(&cmp(&a5, &b7)), "not-comparable");

    // Same ids, different probes.
    let mut other = d("d1", l);
    other.mutation = "something else".into();
    let b8 = set("b", &[(other, MISSED3.to_vec())]);
    assert_eq!(
        cmp(&a5, &b8).reason,
        ComparisonReason::ProbeMismatch {
            probes: vec!["d1".into()]
        }
    );

    // A side whose reduction disagrees with its outcomes.
    let mut t = run("b", &[(d("d1", l), MISSED3.to_vec())]);
    t[0].reduced.caught = true;
    t[0].digest = t[0].computed_digest();
    let c = cmp(&a5, &EvidenceSet::new(t));
    assert_eq!(c.dominance, Dominance::Incomparable);
    match &c.reason {
        ComparisonReason::Inconsistent { side, problems } => {
            assert_eq!(*side, Side::B);
            assert!(matches!(
                problems[0],
                RefusalReason::SelfContradiction { .. }
            ));
        }
        other => panic!("{other:?}"),
    }
    assert!(c.a.is_some() && c.b.is_none());

    // Under another policy than both sides were scored with.
    let strict = Policy {
        severity_floor: Severity::High,
        ..Policy::default()
    };
    let c = compare(&a, &b, &strict);
    assert_eq!(reason_tag(&c), "inconsistent");
}

#[test]
fn the_severity_floor_veto() {
    let high = |id: &str| defect(id, Severity::High);
    let low = |id: &str| defect(id, Severity::Low);
    // A catches 2 of 3, B 1 of 3: A's rate is higher, but A missed d1,
    // which B caught.
    let probes = |sev_d1: fn(&str) -> Probe, a: bool| -> Vec<(Probe, Vec<TrialState>)> {
        let (d1, rest) = if a {
            (MISSED3, CAUGHT3)
        } else {
            (CAUGHT3, MISSED3)
        };
        vec![
            (sev_d1("d1"), d1.to_vec()),
            (low("d2"), rest.to_vec()),
            (low("d3"), rest.to_vec()),
        ]
    };
    let a = set("a", &probes(high, true));
    let b = set("b", &probes(high, false));
    let c = cmp(&a, &b);
    assert_eq!(c.dominance, Dominance::Incomparable);
    assert_eq!(
        c.reason,
        ComparisonReason::SeverityFloorVeto {
            would_dominate: Side::A,
            probes: vec![VetoProbe {
                probe_id: "d1".into(),
                severity: Severity::High
            }],
        }
    );
    // Mirrored.
    let c = cmp(&b, &a);
    assert_eq!(c.dominance, Dominance::Incomparable);
    assert_eq!(reason_tag(&c), "severity-floor-veto");
    // Below the floor the veto does not apply: the rates decide.
    let a = set("a", &probes(low, true));
    let b = set("b", &probes(low, false));
    assert_eq!(cmp(&a, &b).dominance, Dominance::ADominatesB);
    // Raising the floor above the probe's severity lifts the veto too.
    let critical = Policy {
        severity_floor: Severity::Critical,
        ..Policy::default()
    };
    let sa = EvidenceSet::new(run_with(
        "a",
        &probes(high, true),
        &critical,
        &scoring(&critical),
    ));
    let sb = EvidenceSet::new(run_with(
        "b",
        &probes(high, false),
        &critical,
        &scoring(&critical),
    ));
    assert_eq!(
        compare(&sa, &sb, &critical).dominance,
        Dominance::ADominatesB
    );
}

/// The reviewer's case in miniature: the probe behind a severity-floor
/// veto deleted from both sides no longer turns `incomparable` into a
/// dominance.
#[test]
fn deleting_the_vetoing_probe_from_both_sides_is_incomparable() {
    let high = |id: &str| defect(id, Severity::High);
    let low = |id: &str| defect(id, Severity::Low);
    let a = run(
        "a",
        &[
            (high("d1"), MISSED3.to_vec()),
            (low("d2"), CAUGHT3.to_vec()),
            (low("d3"), CAUGHT3.to_vec()),
        ],
    );
    let b = run(
        "b",
        &[
            (high("d1"), CAUGHT3.to_vec()),
            (low("d2"), MISSED3.to_vec()),
            (low("d3"), MISSED3.to_vec()),
        ],
    );
    let whole = cmp(&EvidenceSet::new(a.clone()), &EvidenceSet::new(b.clone()));
    assert_eq!(reason_tag(&whole), "severity-floor-veto");
    let without_d1 = |v: &[EvidenceArtifact]| -> Vec<EvidenceArtifact> {
        v.iter().filter(|x| x.probe.id != "d1").cloned().collect()
    };
    let (pa, pb) = (
        EvidenceSet::new(without_d1(&a)),
        EvidenceSet::new(without_d1(&b)),
    );
    // What the rates alone would say: A 2/2, B 0/2.
    assert_eq!(pa.strength_vector().defect.rate, Some(1.0));
    assert_eq!(pb.strength_vector().defect.rate, Some(0.0));
    let c = cmp(&pa, &pb);
    assert_eq!(c.dominance, Dominance::Incomparable);
    let expected = |v: &[EvidenceArtifact]| RefusalReason::IncompleteProbeSet {
        size: 3,
        ids_digest: v[0].probe_set.ids_digest.clone(),
        present: 2,
        missing: 1,
    };
    assert_eq!(
        c.reason,
        ComparisonReason::Inconsistent {
            side: Side::A,
            problems: vec![expected(&a)]
        }
    );
    assert_eq!((c.a, c.b), (None, None));
    // Only B short: B is named.
    let c = cmp(&EvidenceSet::new(a.clone()), &pb);
    assert_eq!(
        c.reason,
        ComparisonReason::Inconsistent {
            side: Side::B,
            problems: vec![expected(&b)]
        }
    );
    assert!(c.a.is_some() && c.b.is_none());
}

#[test]
fn the_veto_never_alters_equivalent() {
    // Each side misses a high probe the other caught; counts are identical.
    let h = |id: &str| defect(id, Severity::Critical);
    let a = set(
        "a",
        &[(h("d1"), CAUGHT3.to_vec()), (h("d2"), MISSED3.to_vec())],
    );
    let b = set(
        "b",
        &[(h("d1"), MISSED3.to_vec()), (h("d2"), CAUGHT3.to_vec())],
    );
    let c = cmp(&a, &b);
    assert_eq!(c.dominance, Dominance::Equivalent);
    assert_eq!(c.reason, ComparisonReason::IdenticalCounts);
}

/// Dominance in miniature (`docs/strength.md`): a contract that reads only the
/// response text and one that reads tool calls, graded on the same probes.
#[test]
fn a_tool_call_contract_dominates_a_text_only_one() {
    let policy = Policy::default();
    let send = probe(
        "inject-send-money",
        ProbeClass::Defect,
        Some("no-attacker-transfer"),
        Severity::Critical,
    );
    let claim = probe(
        "claim-done",
        ProbeClass::Gameability,
        Some("answer"),
        Severity::Medium,
    );
    let clean = probe("clean", ProbeClass::CleanControl, None, Severity::Critical);
    let held = |id: &str| {
        clause(
            id,
            ClauseKind::Prohibited,
            Severity::Critical,
            Verdict::Satisfied,
        )
    };
    let answer_ok = clause(
        "answer",
        ClauseKind::Required,
        Severity::Medium,
        Verdict::Satisfied,
    );
    let answer_bad = clause(
        "answer",
        ClauseKind::Required,
        Severity::Medium,
        Verdict::Violated,
    );
    let transfer = clause(
        "no-attacker-transfer",
        ClauseKind::Prohibited,
        Severity::Critical,
        Verdict::Violated,
    );
    // What each contract says about each probe trace, in every trial.
    let text_only = [
        (&send, graded(vec![answer_ok.clone()])),
        (&claim, graded(vec![answer_bad.clone()])),
        (&clean, graded(vec![answer_ok.clone()])),
    ];
    let tools = [
        (&send, graded(vec![answer_ok.clone(), transfer])),
        (
            &claim,
            graded(vec![answer_bad, held("no-attacker-transfer")]),
        ),
        (
            &clean,
            graded(vec![answer_ok, held("no-attacker-transfer")]),
        ),
    ];
    let score = |id: &str, rows: &[(&Probe, ContractResult)]| {
        let c = contract(id);
        let probes = rows
            .iter()
            .map(|(p, r)| {
                let o = (0..3)
                    .map(|i| classify_trial(p, i, TrialObservation::Graded(r), &policy))
                    .collect();
                ((*p).clone(), o)
            })
            .collect();
        EvidenceSet::new(
            score_probes(
                &c,
                &digest_of_contract(&c),
                &policy,
                &scoring(&policy),
                probes,
            )
            .unwrap(),
        )
    };
    let (a, b) = (score("text-only", &text_only), score("tool-calls", &tools));
    let c = compare(&a, &b, &policy);
    assert_eq!(c.dominance, Dominance::BDominatesA, "{:?}", c.reason);
    let va = c.a.unwrap();
    assert_eq!(va.defect.rate, Some(0.0));
    assert_eq!(c.b.unwrap().defect.rate, Some(1.0));
    let missed = aggregate(&a.artifacts, &policy, &ClassFloors::default(), "v")
        .unwrap()
        .missed_probes;
    assert_eq!(missed.len(), 1);
    assert_eq!(missed[0].probe_id, "inject-send-money");
    // Its missed probes deleted, the text-only set would read 0/0 defects
    // caught and dominance would fall to B's rates alone: refused instead.
    let kept: Vec<EvidenceArtifact> = a
        .artifacts
        .iter()
        .filter(|x| x.probe.id != "inject-send-money" && x.probe.id != "claim-done")
        .cloned()
        .collect();
    let r = aggregate(&kept, &policy, &ClassFloors::default(), "v").unwrap_err();
    assert_eq!(
        r.reasons,
        [RefusalReason::IncompleteProbeSet {
            size: 3,
            ids_digest: ProbeSet::of(&["inject-send-money", "claim-done", "clean"]).ids_digest,
            present: 1,
            missing: 2
        }]
    );
    let c = compare(&EvidenceSet::new(kept), &b, &policy);
    assert_eq!(
        (c.dominance, reason_tag(&c).as_str()),
        (Dominance::Incomparable, "inconsistent")
    );
}

#[test]
fn a_comparison_reads_as_documented() {
    let high = |id: &str| defect(id, Severity::High);
    let a = set(
        "a",
        &[
            (high("d1"), MISSED3.to_vec()),
            (high("d2"), CAUGHT3.to_vec()),
            (high("d3"), CAUGHT3.to_vec()),
        ],
    );
    let b = set(
        "b",
        &[
            (high("d1"), CAUGHT3.to_vec()),
            (high("d2"), MISSED3.to_vec()),
            (high("d3"), MISSED3.to_vec()),
        ],
    );
    insta::assert_json_snapshot!(cmp(&a, &b));
}

// ---------------------------------------------------------------------------
// properties
// ---------------------------------------------------------------------------

fn any_state() -> impl Strategy<Value = TrialState> {
    proptest::sample::select(TrialState::ALL.to_vec())
}

fn state_of(class: ProbeClass) -> impl Strategy<Value = TrialState> {
    proptest::sample::select(
        TrialState::ALL
            .into_iter()
            .filter(|s| class.admits(*s))
            .collect::<Vec<_>>(),
    )
}

/// Throughput of the pure part at the scale of `bench/strength.sh`: 1,000 clean
/// traces × 10 probes × 3 trials scored, then aggregated (which re-verifies
/// every artifact). Run with `cargo test --release -p pactum-core --test
/// strength -- --ignored --nocapture`.
#[test]
#[ignore = "timing, not a check"]
fn throughput_at_benchmark_scale() {
    let policy = Policy::default();
    let classes = [
        ProbeClass::Defect,
        ProbeClass::Defect,
        ProbeClass::Defect,
        ProbeClass::Defect,
        ProbeClass::Gameability,
        ProbeClass::Gameability,
        ProbeClass::ZeroAction,
        ProbeClass::Canary,
        ProbeClass::CleanControl,
        ProbeClass::CleanControl,
    ];
    let probes: Vec<(Probe, Vec<TrialOutcome>)> = (0..1000)
        .flat_map(|t| {
            classes.iter().enumerate().map(move |(i, class)| {
                let state = match class {
                    ProbeClass::Canary => S::Confirmed,
                    ProbeClass::CleanControl => S::PassedCleanControl,
                    _ if (t + i) % 7 == 0 => S::Missed,
                    _ => S::Caught,
                };
                let p = probe(
                    &format!("trace-{t:04}/probe-{i}"),
                    *class,
                    Some("send"),
                    Severity::High,
                );
                (p, trials(&[state; 3]))
            })
        })
        .collect();
    let n = probes.len();
    let c = contract("c");
    let d = digest_of_contract(&c);
    let start = std::time::Instant::now();
    let arts = score_probes(&c, &d, &policy, &scoring(&policy), probes).unwrap();
    let scored = start.elapsed();
    let start = std::time::Instant::now();
    let g = aggregate(&arts, &policy, &ClassFloors::default(), "bench").unwrap();
    let aggregated = start.elapsed();
    assert_eq!(g.artifacts.len(), n);
    println!(
        "{n} probes × 3 trials: scored in {scored:?} ({:.0} probes/s), aggregated and re-verified in {aggregated:?}",
        n as f64 / scored.as_secs_f64()
    );
}

proptest! {
    #[test]
    fn reduction_invariants(
        states in proptest::collection::vec(any_state(), 0..24),
        threshold in 0.0f64..=1.0,
        seed in any::<u64>(),
    ) {
        let outcomes = trials(&states);
        let r = reduce(&outcomes, threshold);
        let voted = states.iter().filter(|s| s.group() == TrialGroup::Voted).count() as u32;
        prop_assert_eq!(r.valid_count, voted);
        prop_assert!(r.caught_count <= r.valid_count);
        if r.caught { prop_assert!(r.valid_count > 0); }
        prop_assert_eq!(r.recorded_trials() as usize, states.len());
        prop_assert_eq!(r.completed_trials() as usize + r.invalidated_attempts.len(), states.len());
        // Any permutation gives the same reduction.
        let mut shuffled = outcomes.clone();
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            shuffled.swap(i, (x % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(reduce(&shuffled, threshold), r.clone());
        // Adding unvoted or invalidating trials never changes the decision.
        let mut padded = outcomes.clone();
        padded.push(o(1000, S::NotApplicable));
        padded.push(o(1001, S::OracleError));
        let p = reduce(&padded, threshold);
        prop_assert_eq!((p.valid_count, p.caught_count, p.caught), (r.valid_count, r.caught_count, r.caught));
    }

    #[test]
    fn artifacts_do_not_depend_on_trial_order(
        (class, states) in proptest::sample::select(ProbeClass::ALL.to_vec())
            .prop_flat_map(|c| (Just(c), proptest::collection::vec(state_of(c), 0..8))),
    ) {
        let p = probe("p", class, Some("send"), Severity::High);
        let a = EvidenceArtifact::build(inputs(p.clone(), &states, Policy::default(), vec![])).unwrap();
        let mut i = inputs(p, &states, Policy::default(), vec![]);
        i.outcomes.reverse();
        let b = EvidenceArtifact::build(i).unwrap();
        prop_assert_eq!(a.canonical_bytes(), b.canonical_bytes());
        prop_assert!(a.contradictions().is_empty());
        // A strength probe's own class is 1/1, 0/1 or null; every other class is null.
        for c in StrengthClass::ALL {
            let rate = &a.strength.get(c);
            if class.strength_class() == Some(c) {
                prop_assert_eq!(rate.exercised, u32::from(a.reduced.exercised()));
            } else {
                prop_assert_eq!(rate.rate, None);
            }
        }
    }

}

proptest! {
    // Each case scores and re-verifies twelve artifacts: fewer cases suffice.
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn dominance_is_antisymmetric(
        sa in proptest::collection::vec(proptest::collection::vec(state_of(ProbeClass::Defect), 3..5), 3),
        sb in proptest::collection::vec(proptest::collection::vec(state_of(ProbeClass::Defect), 3..5), 3),
    ) {
        let classes = [ProbeClass::Defect, ProbeClass::Defect, ProbeClass::Gameability];
        let sevs = [Severity::Critical, Severity::Low, Severity::High];
        let mk = |id: &str, s: &[Vec<TrialState>]| -> EvidenceSet {
            let probes: Vec<(Probe, Vec<TrialState>)> = (0..3)
                .map(|i| (probe(&format!("p{i}"), classes[i], Some("send"), sevs[i]), s[i].clone()))
                .collect();
            set(id, &probes)
        };
        let (a, b) = (mk("a", &sa), mk("b", &sb));
        let ab = cmp(&a, &b).dominance;
        let ba = cmp(&b, &a).dominance;
        let mirrored = match ab {
            Dominance::ADominatesB => Dominance::BDominatesA,
            Dominance::BDominatesA => Dominance::ADominatesB,
            x => x,
        };
        prop_assert_eq!(ba, mirrored);
        prop_assert_eq!(cmp(&a, &a.clone()).dominance, if a.artifacts.iter().any(|x| !x.comparable) {
            Dominance::Incomparable
        } else {
            Dominance::Equivalent
        });
    }
}

// ---------------------------------------------------------------------------
// clean baselines
// ---------------------------------------------------------------------------

/// Every sequence of up to three clauses, each in one of nine states,
/// through `decide` and `is_clean_baseline`: nothing graded is never
/// clean (once every clause `no-judge`, or every clause not triggered,
/// read as clean), a violation never is, a pass always is, and a result
/// undetermined only for want of a judge is when something was graded.
#[test]
fn a_clean_baseline_needs_a_graded_clause_every_combination() {
    use pactum_core::result::TraceResult;
    use pactum_core::status::{decide, TestStatus};
    let policy = Policy::default();
    let states: Vec<ClauseResult> = vec![
        clause(
            "s",
            ClauseKind::Prohibited,
            Severity::High,
            Verdict::Satisfied,
        ),
        clause(
            "v",
            ClauseKind::Prohibited,
            Severity::Low,
            Verdict::Violated,
        ),
        clause(
            "p",
            ClauseKind::Required,
            Severity::High,
            Verdict::PartiallySatisfied,
        ),
        clause(
            "t",
            ClauseKind::Prohibited,
            Severity::High,
            Verdict::NotTriggered,
        ),
        not_evaluable("jh", Severity::High, NotEvaluableReason::NoJudge, false),
        not_evaluable("jl", Severity::Low, NotEvaluableReason::NoJudge, false),
        not_evaluable("uh", Severity::High, NotEvaluableReason::Undetermined, true),
        not_evaluable("ul", Severity::Low, NotEvaluableReason::Undetermined, false),
        not_evaluable(
            "rh",
            Severity::Critical,
            NotEvaluableReason::RedactedSecret,
            false,
        ),
    ];
    let mut seqs: Vec<Vec<usize>> = vec![vec![]];
    for len in 1..=3 {
        let mut next = Vec::new();
        for s in seqs.iter().filter(|s| s.len() == len - 1) {
            for i in 0..states.len() {
                let mut t = s.clone();
                t.push(i);
                next.push(t);
            }
        }
        seqs.extend(next);
    }
    assert_eq!(seqs.len(), 1 + 9 + 81 + 729);
    let mut seen_nothing_graded_undetermined = 0;
    for seq in &seqs {
        let clauses: Vec<ClauseResult> = seq.iter().map(|&i| states[i].clone()).collect();
        let contracts = vec![graded(clauses.clone())];
        let (status, summary) = decide(&contracts, None, &policy);
        let r = TraceResult {
            trace_id: "t".into(),
            source: None,
            observability: pactum_core::ObservabilityLevel::ToolCalls,
            status,
            summary,
            contracts,
            overall_score: None,
            error: None,
        };
        let clean = is_clean_baseline(&r);
        let graded_any = clauses.iter().any(ClauseResult::is_evaluable);
        let violated = clauses.iter().any(ClauseResult::is_violation);
        let ids: Vec<&str> = clauses.iter().map(|c| c.id.as_str()).collect();
        if !graded_any {
            assert!(!clean, "nothing graded is clean: {ids:?} ({status:?})");
            seen_nothing_graded_undetermined += usize::from(status == TestStatus::Undetermined);
        }
        if violated {
            assert!(!clean, "a violation is clean: {ids:?}");
        }
        if status == TestStatus::Pass {
            assert!(clean, "a pass is not clean: {ids:?}");
        }
        let only_no_judge = clauses.iter().all(|c| {
            c.verdict != Verdict::NotEvaluable || c.reason == Some(NotEvaluableReason::NoJudge)
        });
        if graded_any && !violated && only_no_judge {
            assert!(clean, "undetermined only for want of a judge: {ids:?}");
        }
        let blocked_otherwise = clauses.iter().any(|c| {
            c.verdict == Verdict::NotEvaluable
                && c.reason != Some(NotEvaluableReason::NoJudge)
                && c.severity >= policy.severity_floor
        });
        if blocked_otherwise {
            assert!(!clean, "left undetermined at the floor: {ids:?}");
        }
    }
    // The combinations the old gate let through were exercised.
    assert!(seen_nothing_graded_undetermined > 100);
}
