//! Builders shared by the integration tests: traces, predicates and
//! contracts from JSON literals, and a scripted judge.

use std::collections::BTreeMap;

use pactum_core::contract::Contract;
use pactum_core::judge::JudgeAnswer;
use pactum_core::{Predicate, Trace};
use pactum_eval::{CompiledContract, Judgments};
use serde_json::Value;

pub fn trace(v: Value) -> Trace {
    serde_json::from_value(v).expect("test trace")
}

pub fn pred(v: Value) -> Predicate {
    serde_json::from_value(v).expect("test predicate")
}

pub fn contract(v: Value) -> CompiledContract {
    let c: Contract = serde_json::from_value(v).expect("test contract");
    CompiledContract::compile(c, "sha256:test".into()).expect("compiles")
}

/// A judge with scripted answers per (contract, clause).
#[derive(Default)]
pub struct Scripted {
    pub configured: bool,
    pub answers: BTreeMap<(String, String), JudgeAnswer>,
}

impl Scripted {
    pub fn with(contract: &str, clause: &str, a: JudgeAnswer) -> Self {
        let mut answers = BTreeMap::new();
        answers.insert((contract.to_string(), clause.to_string()), a);
        Scripted {
            configured: true,
            answers,
        }
    }
}

impl Judgments for Scripted {
    fn configured(&self) -> bool {
        self.configured
    }
    fn answer(&self, contract_id: &str, clause_id: &str) -> Option<JudgeAnswer> {
        self.answers
            .get(&(contract_id.to_string(), clause_id.to_string()))
            .cloned()
    }
}
