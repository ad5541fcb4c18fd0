//! Properties over generated patterns, matchers and traces.

use pactum_core::contract::ValueMatch;
use pactum_core::strength::ProbeClass;
use pactum_core::Outcome;
use pactum_eval::{evaluate_predicate, CompiledValueMatch};
use pactum_probe::{apply, corrupted_value, regex_witness, satisfying_value, Origin};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common::{contract, generate, trace};

/// Patterns from a small grammar: literals, classes, repetitions,
/// alternations, groups, anchors and word boundaries.
fn pattern() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        "[a-z0-9 ]{1,4}".prop_map(|s| regex::escape(&s)),
        Just(r"\d".to_string()),
        Just(r"\w".to_string()),
        Just(r"\s".to_string()),
        Just("[A-F]".to_string()),
        Just("[^a]".to_string()),
        Just(".".to_string()),
        Just(r"\b".to_string()),
        Just("(?i)x".to_string()),
    ];
    atom.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| v.concat()),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(?:{a}|{b})")),
            (inner.clone(), 0u32..3, 0u32..3)
                .prop_map(|(a, m, extra)| format!("(?:{a}){{{m},{}}}", m + extra)),
            inner.clone().prop_map(|a| format!("({a})+")),
            inner.prop_map(|a| format!("^{a}$")),
        ]
    })
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-d]{0,3}".prop_map(Value::from),
        (-3i64..4).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ]
}

fn matcher() -> impl Strategy<Value = ValueMatch> {
    (
        prop::option::of(scalar()),
        prop::option::of("[a-d]{1,2}".prop_map(Value::from)),
        prop::option::of("[a-dA-D]{1,2}"),
        prop::option::of(prop_oneof![
            Just("^[a-d]+$".to_string()),
            Just(r"\d".to_string()),
            Just("b".to_string())
        ]),
        prop::option::of(prop::collection::vec(scalar(), 0..3)),
        prop::option::of(any::<bool>()),
    )
        .prop_map(
            |(equals, contains, icontains, regex, one_of, exists)| ValueMatch {
                equals,
                contains,
                icontains,
                regex,
                one_of,
                exists,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_witness_always_matches_its_pattern(p in pattern()) {
        if let Some(w) = regex_witness(&p) {
            prop_assert!(regex::Regex::new(&p).unwrap().is_match(&w), "{p} -> {w:?}");
        }
    }

    #[test]
    fn a_literal_is_its_own_witness(s in "[ -~]{0,12}") {
        prop_assert_eq!(regex_witness(&regex::escape(&s)), Some(s));
    }

    #[test]
    fn built_values_match_and_corrupted_values_do_not(m in matcher(), original in scalar()) {
        let compiled = CompiledValueMatch::compile(m.clone()).unwrap();
        if let Some(v) = satisfying_value(&m) {
            prop_assert!(compiled.matches(v.as_ref()), "{m:?} -> {v:?}");
        }
        if compiled.matches(Some(&original)) {
            if let Some(c) = corrupted_value(&compiled, &original) {
                prop_assert!(!compiled.matches(c.as_ref()), "{m:?}: {original} -> {c:?}");
                prop_assert_ne!(c.as_ref(), Some(&original));
            }
        }
    }
}

fn turn() -> impl Strategy<Value = Value> {
    let call = (
        prop_oneof![Just("lookup"), Just("send_money"), Just("delete")],
        prop_oneof![Just("DE89"), Just("US13"), Just("FR76")],
        0i64..3,
    )
        .prop_map(|(n, r, a)| json!({"name": n, "arguments": {"recipient": r, "amount": a}}));
    (
        "[a-z]{1,8}",
        prop::option::of(prop_oneof![
            Just("Thanks, done."),
            Just("I sent it to US13."),
            Just("All good"),
            Just("")
        ]),
        prop::collection::vec(call, 0..3),
        prop::collection::vec(prop_oneof![Just("ledger_write"), Just("http_request")], 0..2),
    )
        .prop_map(|(user, response, calls, effects)| {
            json!({
                "input": [{"role": "user", "content": user}],
                "response": response,
                "tool_calls": calls,
                "side_effects": effects.iter().map(|k| json!({"kind": k, "details": {}})).collect::<Vec<_>>()
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Whatever the trace: ids are unique, edits replay to the probe trace,
    /// every defect moved its clause's check the way its clause needs, and
    /// generation never panics.
    #[test]
    fn generated_probes_are_sound(turns in prop::collection::vec(turn(), 1..4)) {
        let c = contract(json!({
            "required": [
                {"id": "thank", "text": "Thank", "check": {"icontains": "thanks"}},
                {"id": "look", "text": "Look up", "check": {"tool_called": {"name": "lookup", "args": {"/amount": {"one_of": [0, 1]}}}}}
            ],
            "prohibited": [
                {"id": "pay", "text": "Pay US13", "check": {"any": [
                    {"tool_called": {"name": "send_money", "args": {"/recipient": "US13"}}},
                    {"regex": {"pattern": r"US\d\d", "turns": "final"}}
                ]}},
                {"id": "post", "text": "Post out", "check": {"all": [
                    {"side_effect": {"kind": "http_request"}},
                    {"not": {"contains": "All good"}}
                ]}}
            ]
        }));
        let clean = trace(Value::Array(turns));
        let g = generate(&c, &clean);
        let mut ids: Vec<&str> = g.cases.iter().map(|x| x.probe.id.as_str()).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len(), n);
        prop_assert!(g.cases.iter().any(|x| x.probe.class == ProbeClass::CleanControl));
        for p in &g.cases {
            let Origin::Generated { edits, .. } = &p.origin else { unreachable!() };
            prop_assert_eq!(&apply(&clean, edits).unwrap(), &p.trace);
            if p.probe.class != ProbeClass::Defect {
                continue;
            }
            let id = p.probe.targets.as_deref().unwrap();
            let cc = c.contract();
            let prohibited = cc.prohibited.iter().any(|x| x.id == id);
            let clause = cc.required.iter().chain(cc.prohibited.iter()).find(|x| x.id == id).unwrap();
            let after = evaluate_predicate(clause.check.as_ref().unwrap(), &p.trace).unwrap().outcome;
            prop_assert_eq!(after, if prohibited { Outcome::Detected } else { Outcome::NotDetected }, "{}", p.probe.id);
        }
    }
}
