//! Small hand-built contracts and traces.

use pactum_core::contract::Contract;
use pactum_core::strength::ProbeClass;
use pactum_core::trace::Trace;
use pactum_eval::CompiledContract;
use pactum_probe::{Generation, Generator, ProbeCase};
use serde_json::{json, Value};

/// A contract from its JSON shape (`version` and `id` filled in).
pub fn contract(mut v: Value) -> CompiledContract {
    v["version"] = json!(1);
    if v.get("id").is_none() {
        v["id"] = json!("c");
    }
    let c: Contract = serde_json::from_value(v).unwrap();
    let digest = pactum_core::digest::digest_of(&c);
    CompiledContract::compile(c, digest).unwrap()
}

/// A trace from its turns, at level `full`.
pub fn trace(turns: Value) -> Trace {
    serde_json::from_value(json!({"id": "t", "observability": "full", "turns": turns})).unwrap()
}

/// Two turns: a lookup and a payment, then an answer.
pub fn two_turns() -> Trace {
    trace(json!([
        {
            "input": [{"role": "system", "content": "You are a bank."},
                      {"role": "user", "content": "Look up account 7."}],
            "response": "Account 7 holds 100.",
            "tool_calls": [{"name": "lookup", "arguments": {"id": 7}, "result": "100"}]
        },
        {
            "input": [{"role": "user", "content": "Pay the rent to DE89, please."}],
            "response": "I paid the rent to DE89. Thanks for banking with us.",
            "tool_calls": [
                {"name": "lookup", "arguments": {"id": 7}, "result": "100"},
                {"name": "send_money", "arguments": {"recipient": "DE89", "amount": 50}, "result": "ok"}
            ],
            "side_effects": [{"kind": "ledger_write", "details": {"amount": 50}}]
        }
    ]))
}

pub fn generate(c: &CompiledContract, t: &Trace) -> Generation {
    Generator::new(c.clone()).unwrap().generate(t)
}

/// The one case whose id ends with `suffix`.
pub fn case<'a>(g: &'a Generation, suffix: &str) -> &'a ProbeCase {
    let found: Vec<&ProbeCase> = g
        .cases
        .iter()
        .filter(|c| c.probe.id.ends_with(suffix))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{suffix}: {:?}",
        g.cases.iter().map(|c| &c.probe.id).collect::<Vec<_>>()
    );
    found[0]
}

pub fn ids_of(g: &Generation, class: ProbeClass) -> Vec<String> {
    g.cases
        .iter()
        .filter(|c| c.probe.class == class)
        .map(|c| c.probe.id.clone())
        .collect()
}
