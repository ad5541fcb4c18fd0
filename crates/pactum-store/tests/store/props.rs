//! Property tests: whatever a target, judge or trace file supplies reads
//! back from the store exactly as it was recorded (text with any
//! characters, any JSON, any finite score), and trials stream in the order
//! of Rust's own `(String, u32)` ordering.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use pactum_core::outcome::{Evidence, Outcome, UndeterminedOperand};
use pactum_core::result::{ContractResult, VerdictCounts};
use pactum_core::trace::{Message, Role, SideEffect, SourceRef, ToolCall, Usage};
use pactum_core::verdict::NotEvaluableReason;
use pactum_core::{
    Channel, ClauseKind, ClauseResult, ObservabilityLevel, Severity, TestStatus, Trace,
    TraceResult, Turn, Verdict,
};
use pactum_store::{CacheKind, Store, TrialRecord};
use proptest::prelude::*;
use serde_json::Value;

use crate::common::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z \u{e9}\u{1F600}\"\\\\\n\t\u{0}]{0,12}"
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::Number::from_f64(f)
                .map(Value::Number)
                .unwrap_or(Value::Null)),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String)
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// JSON that is not `null` (an optional field holding `null` reads back as
/// absent, by the core's serde shape).
fn json_present() -> impl Strategy<Value = Value> {
    json_value().prop_filter("not null", |v| !v.is_null())
}

fn level() -> impl Strategy<Value = ObservabilityLevel> {
    prop::sample::select(ObservabilityLevel::ALL.to_vec())
}

fn turn() -> impl Strategy<Value = Turn> {
    let message = (prop::bool::ANY, text()).prop_map(|(user, content)| Message {
        role: if user { Role::User } else { Role::System },
        content,
    });
    let call = (
        prop::option::of(text()),
        text(),
        json_value(),
        prop::option::of(json_present()),
        prop::option::of(text()),
    )
        .prop_map(|(id, name, arguments, result, error)| ToolCall {
            id,
            name,
            arguments,
            result,
            error,
        });
    let effect = (text(), json_value()).prop_map(|(kind, details)| SideEffect { kind, details });
    (
        prop::collection::vec(message, 0..3),
        prop::option::of(text()),
        prop::collection::vec(call, 0..3),
        prop::collection::vec(effect, 0..2),
        prop::option::of(any::<u64>()),
        prop::option::of((any::<u64>(), any::<u64>())),
    )
        .prop_map(
            |(input, response, tool_calls, side_effects, latency_ms, usage)| Turn {
                input,
                response,
                tool_calls,
                side_effects,
                latency_ms,
                usage: usage.map(|(p, c)| Usage {
                    prompt_tokens: p,
                    completion_tokens: c,
                }),
                redacted: Default::default(),
            },
        )
}

fn trace() -> impl Strategy<Value = Trace> {
    (
        text(),
        level(),
        prop::collection::vec(turn(), 0..3),
        json_value(),
        prop::option::of(text()),
        prop::option::of((text(), any::<u64>())),
    )
        .prop_map(
            |(id, observability, turns, metadata, error, source)| Trace {
                id,
                observability,
                turns,
                metadata,
                error,
                incomplete: None,
                ended_by: None,
                source: source.map(|(file, line)| SourceRef { file, line }),
                offered_tools: None,
            },
        )
}

fn finite() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |f| f.is_finite())
}

fn evidence() -> impl Strategy<Value = Evidence> {
    prop_oneof![
        (any::<usize>(), text(), text()).prop_map(|(turn, source, text)| Evidence::Quote {
            turn,
            source,
            text
        }),
        (
            any::<usize>(),
            any::<usize>(),
            text(),
            json_value(),
            any::<bool>()
        )
            .prop_map(
                |(turn, index, name, arguments, errored)| Evidence::ToolCall {
                    turn,
                    index,
                    name,
                    arguments,
                    errored
                }
            ),
        (text(), json_value()).prop_map(|(pointer, value)| Evidence::Field { pointer, value }),
    ]
}

fn clause() -> impl Strategy<Value = ClauseResult> {
    let verdict = prop::sample::select(Verdict::ALL.to_vec());
    // Every value of each enum, from the enum itself, so a new one is
    // round-tripped the day it is added.
    let outcome = prop::sample::select(Outcome::ALL.to_vec());
    let reason = prop::sample::select(NotEvaluableReason::ALL.to_vec());
    let operand = (
        text(),
        text(),
        prop::option::of(prop::sample::select(vec![
            Channel::Response,
            Channel::ToolCalls,
            Channel::SideEffects,
        ])),
    )
        .prop_map(|(predicate, reason, channel)| UndeterminedOperand {
            predicate,
            reason,
            channel,
        });
    (
        (
            text(),
            any::<bool>(),
            any::<bool>(),
            text(),
            prop::sample::select(Severity::ALL.to_vec()),
        ),
        (
            verdict,
            0u8..=100,
            outcome,
            prop::collection::vec(evidence(), 0..3),
            text(),
        ),
        (
            prop::collection::vec(operand, 0..2),
            prop::option::of(reason),
            prop::option::of(text()),
        ),
    )
        .prop_map(
            |(
                (id, required, conditional, text, severity),
                (verdict, confidence, outcome, evidence, rationale),
                (undetermined_operands, reason, suggestion),
            )| {
                ClauseResult {
                    id,
                    kind: if required {
                        ClauseKind::Required
                    } else {
                        ClauseKind::Prohibited
                    },
                    conditional,
                    text,
                    severity,
                    verdict,
                    confidence,
                    outcome,
                    evidence,
                    rationale,
                    // An echo note beside the first operand, so both round-trip.
                    discounted_echoes: undetermined_operands
                        .iter()
                        .take(1)
                        .map(|o| pactum_core::DiscountedEcho {
                            predicate: o.predicate.clone(),
                            turn: 1,
                        })
                        .collect(),
                    undetermined_operands,
                    reason,
                    suggestion,
                }
            },
        )
}

fn result() -> impl Strategy<Value = TraceResult> {
    let contract = (
        text(),
        text(),
        prop::collection::vec(clause(), 0..3),
        prop::option::of(finite()),
    )
        .prop_map(
            |(contract_id, contract_digest, clauses, score)| ContractResult {
                counts: VerdictCounts::of(&clauses),
                contract_id,
                contract_digest,
                clauses,
                score,
            },
        );
    (
        text(),
        level(),
        prop::sample::select(TestStatus::ALL.to_vec()),
        text(),
        prop::collection::vec(contract, 0..3),
        prop::option::of(finite()),
        prop::option::of(text()),
    )
        .prop_map(
            |(trace_id, observability, status, summary, contracts, overall_score, error)| {
                TraceResult {
                    trace_id,
                    source: None,
                    observability,
                    status,
                    summary,
                    contracts,
                    overall_score,
                    error,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn any_trial_reads_back_exactly(trace in prop::option::of(trace()), result in result(), test_id in text(), index in any::<u32>()) {
        let store = Store::open_in_memory().expect("store");
        let run = store.create_run(&new_run("props", T0)).expect("create");
        let record = TrialRecord {
            run_id: run.clone(),
            test_id: test_id.clone(),
            trial_index: index,
            contract: None,
            result,
            trace,
            judge_answers: judge_answers(0),
            started_at: T0.into(),
            finished_at: T0.into(),
            duration_ms: u64::from(index),
        };
        store.record_trial(&record).expect("record");
        let mut got = Vec::new();
        store.trials(&run, &mut |t| { got.push(t); ControlFlow::Continue(()) }).expect("trials");
        prop_assert_eq!(got.len(), 1);
        prop_assert_eq!(&got[0].result, &record.result);
        prop_assert_eq!(&got[0].trace, &record.trace);
        prop_assert_eq!(&got[0].test_id, &test_id);
        prop_assert_eq!(got[0].trial_index, index);
        let counts = store.run(&run).expect("run").expect("exists").counts;
        prop_assert_eq!(counts.get(record.result.status), 1);
    }

    #[test]
    fn any_json_reads_back_exactly_from_the_cache(value in json_value(), kind in prop::sample::select(CacheKind::ALL.to_vec())) {
        let store = Store::open_in_memory().expect("store");
        let key = digest("k");
        store.cache_put(&key, kind, &value, T0).expect("put");
        prop_assert_eq!(store.cache_get(&key).expect("get"), Some(value));
    }

    #[test]
    fn trials_stream_in_rust_order(keys in prop::collection::btree_set((text(), 0u32..40), 0..12)) {
        let store = Store::open_in_memory().expect("store");
        let run = store.create_run(&new_run("props", T0)).expect("create");
        // Insert in reverse order so the store has to sort.
        for (test, index) in keys.iter().rev() {
            let mut t = trial(&run, test, *index, TestStatus::Pass);
            t.judge_answers.clear();
            store.record_trial(&t).expect("record");
        }
        let mut got = Vec::new();
        store.trials(&run, &mut |t| { got.push((t.test_id, t.trial_index)); ControlFlow::Continue(()) }).expect("trials");
        prop_assert_eq!(&got, &keys.iter().cloned().collect::<Vec<_>>());
        prop_assert_eq!(store.finished_trials(&run).expect("set"), keys.into_iter().collect::<BTreeSet<_>>());
    }
}
