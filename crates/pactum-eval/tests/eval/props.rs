//! Property tests: random predicate trees over random small traces.

use pactum_core::contract::{
    CallStatus, CountRange, EchoPolicy, FieldMatch, RefusalKind, RefusalSpec, ResponseScope,
    SideEffectSpec, TextMatch, TextSource, ToolCallMatch, ToolCalledSpec, TurnScope, ValueMatch,
};
use pactum_core::outcome::{Evaluation, Outcome};
use pactum_core::trace::{Channel, Message, ObservabilityLevel, Role, SideEffect, ToolCall, Turn};
use pactum_core::{Predicate, Trace};
use pactum_eval::CompiledPredicate;
use proptest::prelude::*;
use serde_json::json;

const WORDS: [&str; 5] = ["yes", "no", "maybe", "{\"a\": 1}", "[redacted] yes"];
const TOOLS: [&str; 2] = ["a", "b"];

fn arb_turn() -> impl Strategy<Value = Turn> {
    (
        prop::option::of(prop::sample::select(WORDS.to_vec())),
        prop::collection::vec(
            (prop::sample::select(TOOLS.to_vec()), 0..3i64, any::<bool>()),
            0..3,
        ),
        prop::collection::vec(prop::sample::select(vec!["http", "file"]), 0..2),
    )
        .prop_map(|(response, calls, effects)| Turn {
            input: vec![Message {
                role: Role::User,
                content: "say yes".into(),
            }],
            response: response.map(str::to_string),
            tool_calls: calls
                .into_iter()
                .map(|(name, x, err)| ToolCall {
                    id: None,
                    name: name.into(),
                    arguments: json!({"x": x}),
                    result: Some(json!(format!("r{x}"))),
                    error: err.then(|| "failed".to_string()),
                })
                .collect(),
            side_effects: effects
                .into_iter()
                .map(|k| SideEffect {
                    kind: k.into(),
                    details: json!({}),
                })
                .collect(),
            latency_ms: None,
            usage: None,
            redacted: Default::default(),
        })
}

fn arb_trace() -> impl Strategy<Value = Trace> {
    (
        prop::sample::select(ObservabilityLevel::ALL.to_vec()),
        prop::collection::vec(arb_turn(), 0..4),
    )
        .prop_map(|(observability, turns)| Trace {
            id: "p".into(),
            observability,
            turns,
            metadata: json!({"suite": "banking"}),
            error: None,
            incomplete: None,
            ended_by: None,
            source: None,
            offered_tools: None,
        })
}

fn arb_scope() -> impl Strategy<Value = TurnScope> {
    prop::sample::select(vec![TurnScope::Any, TurnScope::Every, TurnScope::Final])
}

fn arb_count() -> impl Strategy<Value = Option<CountRange>> {
    prop::option::of(
        (prop::option::of(0..3u64), prop::option::of(0..3u64))
            .prop_map(|(min, max)| CountRange { min, max }),
    )
}

fn arb_call() -> impl Strategy<Value = ToolCallMatch> {
    (
        prop::sample::select(TOOLS.to_vec()),
        prop::option::of(0..3i64),
        prop::sample::select(vec![CallStatus::Any, CallStatus::Ok, CallStatus::Error]),
    )
        .prop_map(|(name, x, status)| ToolCallMatch {
            name: name.into(),
            args: x
                .map(|x| {
                    [(
                        "/x".to_string(),
                        ValueMatch {
                            equals: Some(json!(x)),
                            ..ValueMatch::default()
                        },
                    )]
                    .into()
                })
                .unwrap_or_default(),
            status,
        })
}

fn arb_leaf() -> impl Strategy<Value = Predicate> {
    let text = (
        prop::sample::select(vec!["yes", "no", "r1", "x\":1", "[redacted]", "d] y"]),
        prop::sample::select(vec![
            TextSource::Response,
            TextSource::ToolArguments,
            TextSource::ToolResults,
        ]),
        arb_scope(),
    )
        .prop_map(|(t, source, turns)| {
            Predicate::Contains(TextMatch {
                text: t.into(),
                source,
                turns,
                echo: EchoPolicy::Exclude,
            })
        });
    prop_oneof![
        text,
        (arb_call(), arb_count())
            .prop_map(|(call, count)| Predicate::ToolCalled(ToolCalledSpec { call, count })),
        prop::collection::vec(arb_call(), 0..3).prop_map(Predicate::ToolSequence),
        (prop::sample::select(vec!["http", "file"]), arb_count()).prop_map(|(k, count)| {
            Predicate::SideEffect(SideEffectSpec {
                kind: k.into(),
                details: Default::default(),
                count,
            })
        }),
        arb_scope().prop_map(|turns| Predicate::JsonValid(ResponseScope { turns })),
        (prop::sample::select(RefusalKind::ALL.to_vec()), arb_scope())
            .prop_map(|(kind, turns)| Predicate::Refusal(RefusalSpec { kind, turns })),
        arb_count().prop_map(|c| Predicate::TurnCount(c.unwrap_or_default())),
        prop::sample::select(vec!["banking", "slack"]).prop_map(|s| Predicate::Field(FieldMatch {
            pointer: "/suite".into(),
            matcher: ValueMatch {
                equals: Some(json!(s)),
                ..ValueMatch::default()
            },
        })),
    ]
}

fn arb_predicate() -> impl Strategy<Value = Predicate> {
    arb_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Predicate::All),
            prop::collection::vec(inner.clone(), 0..4).prop_map(Predicate::Any),
            inner.prop_map(|p| Predicate::Not(Box::new(p))),
        ]
    })
}

/// Permutes every operand list of the tree with a seeded Fisher–Yates.
fn permute(p: &Predicate, seed: &mut u64) -> Predicate {
    let shuffle = |mut v: Vec<Predicate>, seed: &mut u64| {
        for i in (1..v.len()).rev() {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let j = (*seed >> 33) as usize % (i + 1);
            v.swap(i, j);
        }
        v
    };
    match p {
        Predicate::All(ps) => {
            let v = ps.iter().map(|p| permute(p, seed)).collect();
            Predicate::All(shuffle(v, seed))
        }
        Predicate::Any(ps) => {
            let v = ps.iter().map(|p| permute(p, seed)).collect();
            Predicate::Any(shuffle(v, seed))
        }
        Predicate::Not(p) => Predicate::Not(Box::new(permute(p, seed))),
        other => other.clone(),
    }
}

fn eval(p: &Predicate, t: &Trace) -> Evaluation {
    CompiledPredicate::compile(p)
        .expect("generated predicates compile")
        .evaluate(t)
}

fn operand_set(
    e: &Evaluation,
) -> std::collections::BTreeSet<(String, String, Option<&'static str>)> {
    e.undetermined_operands
        .iter()
        .map(|u| {
            (
                u.predicate.clone(),
                u.reason.clone(),
                u.channel.map(|c| c.as_str()),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn permuting_operands_keeps_outcome_and_undetermined_set(p in arb_predicate(), t in arb_trace(), seed in any::<u64>()) {
        let mut s = seed;
        let q = permute(&p, &mut s);
        let (a, b) = (eval(&p, &t), eval(&q, &t));
        prop_assert_eq!(a.outcome, b.outcome);
        prop_assert_eq!(operand_set(&a), operand_set(&b));
    }

    #[test]
    fn double_negation_keeps_the_outcome(p in arb_predicate(), t in arb_trace()) {
        let nn = Predicate::Not(Box::new(Predicate::Not(Box::new(p.clone()))));
        let (a, b) = (eval(&p, &t), eval(&nn, &t));
        prop_assert_eq!(a.outcome, b.outcome);
        prop_assert_eq!(a.undetermined_operands, b.undetermined_operands);
    }

    #[test]
    fn raising_the_level_only_settles_undetermined_outcomes(p in arb_predicate(), t in arb_trace()) {
        let outs: Vec<Outcome> = ObservabilityLevel::ALL.iter().map(|l| {
            let mut t = t.clone();
            t.observability = *l;
            eval(&p, &t).outcome
        }).collect();
        for lo in 0..outs.len() {
            for hi in lo + 1..outs.len() {
                if outs[lo] != Outcome::Undetermined {
                    prop_assert_eq!(outs[lo], outs[hi], "levels {:?}", outs);
                }
            }
        }
        // At the top level nothing is left unobserved: a U can only come
        // from a missing response there.
        if outs[2] == Outcome::Undetermined {
            prop_assert!(t.turns.iter().any(|x| x.response.is_none()));
        }
    }

    /// What pactum records it could not see — channels it redacted a
    /// secret from, the tools the target was offered — can only turn an
    /// answer undetermined: a settled answer on the marked trace is the
    /// answer on the unmarked one.
    #[test]
    fn recording_what_was_unseen_only_unsettles(
        p in arb_predicate(),
        t in arb_trace(),
        marks in prop::collection::vec(
            (0..4usize, prop::sample::select(vec![Channel::Response, Channel::ToolCalls, Channel::SideEffects])),
            0..4,
        ),
        offered in prop::option::of(prop::sample::subsequence(TOOLS.to_vec(), 0..=2)),
    ) {
        let plain = eval(&p, &t);
        let mut marked = t.clone();
        for (i, c) in marks {
            if let Some(turn) = marked.turns.get_mut(i) {
                turn.redacted.insert(c);
            }
        }
        marked.offered_tools = offered.map(|o| o.into_iter().map(str::to_string).collect());
        let m = eval(&p, &marked);
        if m.outcome != Outcome::Undetermined {
            prop_assert_eq!(m.outcome, plain.outcome, "{}", m.rationale);
        }
    }

    #[test]
    fn undetermined_always_names_a_reason(p in arb_predicate(), t in arb_trace()) {
        let e = eval(&p, &t);
        if e.outcome == Outcome::Undetermined {
            prop_assert!(!e.undetermined_operands.is_empty());
        }
        prop_assert!(!e.rationale.is_empty());
    }
}
