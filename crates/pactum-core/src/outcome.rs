//! Three-valued outcomes and their Kleene composition (SPEC §3.1).
//!
//! This module is the one place where `&`, `|` and `~` over
//! [`Outcome`] are defined, and where a composite records the operands that
//! came back [`Outcome::Undetermined`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::trace::Channel;

/// What an evaluator answers about the behaviour it looks for (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// `D`: the behaviour was positively observed.
    Detected,
    /// `N`: the behaviour was looked for on an observed channel and is absent.
    NotDetected,
    /// `U`: the evaluator could not tell (an unobserved channel, no judge…).
    Undetermined,
}

impl Outcome {
    /// All three outcomes, in a fixed order (for exhaustive tests).
    pub const ALL: [Outcome; 3] = [
        Outcome::Detected,
        Outcome::NotDetected,
        Outcome::Undetermined,
    ];

    /// Kleene strong conjunction `a & b` (SPEC §3.1 table).
    pub fn and(self, other: Outcome) -> Outcome {
        use Outcome::*;
        match (self, other) {
            (NotDetected, _) | (_, NotDetected) => NotDetected,
            (Detected, Detected) => Detected,
            _ => Undetermined,
        }
    }

    /// Kleene strong disjunction `a | b` (SPEC §3.1 table).
    pub fn or(self, other: Outcome) -> Outcome {
        use Outcome::*;
        match (self, other) {
            (Detected, _) | (_, Detected) => Detected,
            (NotDetected, NotDetected) => NotDetected,
            _ => Undetermined,
        }
    }

    /// Kleene negation `~a`: `~D = N`, `~N = D`, `~U = U`.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Outcome {
        match self {
            Outcome::Detected => Outcome::NotDetected,
            Outcome::NotDetected => Outcome::Detected,
            Outcome::Undetermined => Outcome::Undetermined,
        }
    }

    /// The one-letter form used in tables and summaries: `D`, `N` or `U`.
    pub fn letter(self) -> char {
        match self {
            Outcome::Detected => 'D',
            Outcome::NotDetected => 'N',
            Outcome::Undetermined => 'U',
        }
    }

    /// The snake_case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Detected => "detected",
            Outcome::NotDetected => "not_detected",
            Outcome::Undetermined => "undetermined",
        }
    }
}

/// One piece of evidence an evaluator found in a trace. Every text field is
/// copied verbatim from the trace, so a reader can find it there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Evidence {
    /// An exact excerpt of text from the trace.
    Quote {
        /// 1-based turn number.
        turn: usize,
        /// Where the text was: `response`, `user`, `system`, `tool_arguments`, `tool_results`.
        source: String,
        /// The excerpt, verbatim (bounded in length by the evaluator).
        text: String,
    },
    /// A tool call, as its name and JSON arguments.
    ToolCall {
        /// 1-based turn number.
        turn: usize,
        /// 0-based position of the call within the whole trace.
        index: usize,
        /// The tool's name.
        name: String,
        /// The call's arguments as recorded.
        arguments: Value,
        /// Whether the call ended in an error (it still counts as made).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        errored: bool,
    },
    /// A side effect the adapter reported.
    SideEffect {
        /// 1-based turn number.
        turn: usize,
        /// The effect's kind, e.g. `http_request`.
        effect: String,
        /// The effect's details as recorded.
        details: Value,
    },
    /// A field of the trace's metadata.
    Field {
        /// JSON pointer into the trace's metadata.
        pointer: String,
        /// The value found there.
        value: Value,
    },
}

impl Evidence {
    /// The evidence of one recorded call: `turn` is 1-based, `index` the
    /// call's 0-based position in the whole trace.
    pub fn of_call(turn: usize, index: usize, call: &crate::trace::ToolCall) -> Evidence {
        Evidence::ToolCall {
            turn,
            index,
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            errored: call.error.is_some(),
        }
    }
}

/// An operand that came back `U`, with its reason (SPEC §3.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndeterminedOperand {
    /// A short description of the predicate, e.g. `tool_called(send_money)`.
    pub predicate: String,
    /// Why it could not tell; for an observability gap this names the level,
    /// the missing channel and what was looked for (SPEC §3.2).
    pub reason: String,
    /// The channel that was not observed, when that is the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<Channel>,
}

/// A match the echo rule discounted: the target only repeated text from
/// the user's input (docs/predicates.md, "Echo exclusion"), so the turn did
/// not count as showing the behaviour. Kept so that a pass can say it held
/// only because a match was discounted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscountedEcho {
    /// The predicate whose match was discounted, e.g. `contains("wire it")`.
    pub predicate: String,
    /// 1-based turn whose every match was an echo.
    pub turn: usize,
}

/// Appends the entries of `from` not already in `into`, keeping order.
pub fn merge_echoes(into: &mut Vec<DiscountedEcho>, from: Vec<DiscountedEcho>) {
    for e in from {
        if !into.contains(&e) {
            into.push(e);
        }
    }
}

/// The result of evaluating one predicate (leaf or composite) over a trace.
///
/// Invariant: whenever `outcome` is `U`, `undetermined_operands` is not empty
/// (a leaf that answers `U` records itself), so a reason is always named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The three-valued answer.
    pub outcome: Outcome,
    /// Evidence supporting the outcome (for `D`, what was found).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// One or two sentences saying why.
    pub rationale: String,
    /// Every evaluated operand that came back `U`, also when this
    /// evaluation's own outcome is settled (`N & U = N` keeps the `U`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undetermined_operands: Vec<UndeterminedOperand>,
    /// Every match the echo rule discounted in this evaluation or any
    /// operand, whatever the outcome (carried through `all`, `any`, `not`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discounted_echoes: Vec<DiscountedEcho>,
}

impl Evaluation {
    /// A settled leaf result (`D` or `N`) with its evidence and rationale.
    pub fn settled(
        outcome: Outcome,
        evidence: Vec<Evidence>,
        rationale: impl Into<String>,
    ) -> Self {
        debug_assert!(outcome != Outcome::Undetermined);
        Evaluation {
            outcome,
            evidence,
            rationale: rationale.into(),
            undetermined_operands: Vec::new(),
            discounted_echoes: Vec::new(),
        }
    }

    /// A leaf that could not tell: it records itself as an undetermined operand.
    pub fn undetermined(
        predicate: impl Into<String>,
        reason: impl Into<String>,
        channel: Option<Channel>,
    ) -> Self {
        let reason = reason.into();
        Evaluation {
            outcome: Outcome::Undetermined,
            evidence: Vec::new(),
            rationale: reason.clone(),
            undetermined_operands: vec![UndeterminedOperand {
                predicate: predicate.into(),
                reason,
                channel,
            }],
            discounted_echoes: Vec::new(),
        }
    }
}

/// `all` over any number of operands: Kleene `&` folded left to right.
///
/// Every operand is evaluated by the caller before this is called; pactum
/// never short-circuits, so no operand is ever skipped and the result does
/// not depend on operand order (SPEC §3.1). An empty `all` is `D`
/// (vacuous truth); the contract lint warns about it.
pub fn all(operands: Vec<Evaluation>) -> Evaluation {
    compose(operands, Outcome::Detected, Outcome::and, "all")
}

/// `any` over any number of operands: Kleene `|` folded left to right.
/// An empty `any` is `N`; the contract lint warns about it. See [`all`].
pub fn any(operands: Vec<Evaluation>) -> Evaluation {
    compose(operands, Outcome::NotDetected, Outcome::or, "any")
}

/// `~` over one operand: the outcome flips `D`↔`N`, `U` stays `U`; evidence
/// and undetermined operands are carried through unchanged.
pub fn not(operand: Evaluation) -> Evaluation {
    let outcome = operand.outcome.not();
    let rationale = match operand.outcome {
        Outcome::Undetermined => operand.rationale,
        _ => format!("negated: {}", operand.rationale),
    };
    Evaluation {
        outcome,
        evidence: operand.evidence,
        rationale,
        undetermined_operands: operand.undetermined_operands,
        discounted_echoes: operand.discounted_echoes,
    }
}

fn compose(
    operands: Vec<Evaluation>,
    identity: Outcome,
    op: fn(Outcome, Outcome) -> Outcome,
    name: &str,
) -> Evaluation {
    let outcome = operands.iter().fold(identity, |acc, e| op(acc, e.outcome));
    let mut undetermined: Vec<UndeterminedOperand> = Vec::new();
    let mut echoes: Vec<DiscountedEcho> = Vec::new();
    let mut evidence = Vec::new();
    let mut reasons: Vec<&str> = Vec::new();
    for e in &operands {
        for u in &e.undetermined_operands {
            if !undetermined.contains(u) {
                undetermined.push(u.clone());
            }
        }
        merge_echoes(&mut echoes, e.discounted_echoes.clone());
        // Only operands that agree with the composite's outcome explain it.
        if e.outcome == outcome {
            evidence.extend(e.evidence.iter().cloned());
            if !e.rationale.is_empty() && !reasons.contains(&e.rationale.as_str()) {
                reasons.push(&e.rationale);
            }
        }
    }
    let rationale = if operands.is_empty() {
        format!("empty `{name}` is vacuously {}", outcome.as_str())
    } else {
        let agreeing = operands.iter().filter(|e| e.outcome == outcome).count();
        let mut s = format!(
            "{name} of {}: {} ({agreeing} operand(s) {})",
            operands.len(),
            outcome.as_str(),
            outcome.as_str()
        );
        for r in reasons.iter().take(3) {
            s.push_str("; ");
            s.push_str(r);
        }
        if reasons.len() > 3 {
            s.push_str(&format!("; and {} more", reasons.len() - 3));
        }
        s
    };
    Evaluation {
        outcome,
        evidence,
        rationale,
        undetermined_operands: undetermined,
        discounted_echoes: echoes,
    }
}

#[cfg(test)]
mod tests {
    use super::Outcome::*;
    use super::*;

    /// The SPEC §3.1 table, row by row, both operand orders.
    const TABLE: [(Outcome, Outcome, Outcome, Outcome); 6] = [
        (Detected, Detected, Detected, Detected),
        (Detected, NotDetected, NotDetected, Detected),
        (Detected, Undetermined, Undetermined, Detected),
        (NotDetected, NotDetected, NotDetected, NotDetected),
        (NotDetected, Undetermined, NotDetected, Undetermined),
        (Undetermined, Undetermined, Undetermined, Undetermined),
    ];

    #[test]
    fn every_cell_of_the_spec_table() {
        for (a, b, and, or) in TABLE {
            assert_eq!(a.and(b), and, "{a:?} & {b:?}");
            assert_eq!(b.and(a), and, "{b:?} & {a:?}");
            assert_eq!(a.or(b), or, "{a:?} | {b:?}");
            assert_eq!(b.or(a), or, "{b:?} | {a:?}");
        }
        assert_eq!(Detected.not(), NotDetected);
        assert_eq!(NotDetected.not(), Detected);
        assert_eq!(Undetermined.not(), Undetermined);
    }

    #[test]
    fn commutativity_over_all_nine_pairs() {
        for a in Outcome::ALL {
            for b in Outcome::ALL {
                assert_eq!(a.and(b), b.and(a));
                assert_eq!(a.or(b), b.or(a));
            }
        }
    }

    #[test]
    fn associativity_over_all_27_triples() {
        for a in Outcome::ALL {
            for b in Outcome::ALL {
                for c in Outcome::ALL {
                    assert_eq!(a.and(b).and(c), a.and(b.and(c)));
                    assert_eq!(a.or(b).or(c), a.or(b.or(c)));
                }
            }
        }
    }

    #[test]
    fn de_morgan_both_ways_and_double_negation() {
        for a in Outcome::ALL {
            assert_eq!(a.not().not(), a);
            for b in Outcome::ALL {
                assert_eq!(a.and(b).not(), a.not().or(b.not()));
                assert_eq!(a.or(b).not(), a.not().and(b.not()));
            }
        }
    }

    fn leaf(o: Outcome, name: &str) -> Evaluation {
        match o {
            Undetermined => Evaluation::undetermined(name, format!("{name} unseen"), None),
            _ => Evaluation::settled(o, vec![], format!("{name} {}", o.as_str())),
        }
    }

    #[test]
    fn composites_record_every_undetermined_operand_in_every_cell() {
        for a in Outcome::ALL {
            for b in Outcome::ALL {
                for (name, composed) in [
                    ("all", all(vec![leaf(a, "a"), leaf(b, "b")])),
                    ("any", any(vec![leaf(a, "a"), leaf(b, "b")])),
                ] {
                    let expected_outcome = if name == "all" { a.and(b) } else { a.or(b) };
                    assert_eq!(composed.outcome, expected_outcome);
                    let recorded: Vec<&str> = composed
                        .undetermined_operands
                        .iter()
                        .map(|u| u.predicate.as_str())
                        .collect();
                    let mut expected = vec![];
                    if a == Undetermined {
                        expected.push("a");
                    }
                    if b == Undetermined {
                        expected.push("b");
                    }
                    assert_eq!(recorded, expected, "{name}({a:?},{b:?})");
                    if composed.outcome == Undetermined {
                        assert!(!composed.undetermined_operands.is_empty());
                    }
                }
            }
        }
    }

    #[test]
    fn settled_conjunction_still_records_the_undetermined_operand() {
        let e = all(vec![leaf(NotDetected, "n"), leaf(Undetermined, "u")]);
        assert_eq!(e.outcome, NotDetected);
        assert_eq!(e.undetermined_operands.len(), 1);
        assert_eq!(e.undetermined_operands[0].reason, "u unseen");
    }

    #[test]
    fn negation_carries_entries_and_evidence_through() {
        let inner = all(vec![leaf(Detected, "d"), leaf(Undetermined, "u")]);
        let negated = not(inner.clone());
        assert_eq!(negated.outcome, Undetermined);
        assert_eq!(negated.undetermined_operands, inner.undetermined_operands);
        let d = Evaluation::settled(
            Detected,
            vec![Evidence::Field {
                pointer: "/x".into(),
                value: Value::Bool(true),
            }],
            "x",
        );
        let n = not(d.clone());
        assert_eq!(n.outcome, NotDetected);
        assert_eq!(n.evidence, d.evidence);
    }

    #[test]
    fn discounted_echoes_travel_through_every_composite() {
        let echo = |turn| DiscountedEcho {
            predicate: "contains(\"x\")".into(),
            turn,
        };
        let mut a = leaf(NotDetected, "a");
        a.discounted_echoes = vec![echo(1)];
        let mut b = leaf(Detected, "b");
        b.discounted_echoes = vec![echo(1), echo(2)];
        for composed in [
            all(vec![a.clone(), b.clone()]),
            any(vec![a.clone(), b.clone()]),
            not(any(vec![b.clone(), a.clone()])),
        ] {
            let mut turns: Vec<usize> = composed.discounted_echoes.iter().map(|e| e.turn).collect();
            turns.sort_unstable();
            assert_eq!(turns, vec![1, 2], "{composed:?}");
        }
        assert_eq!(not(a.clone()).discounted_echoes, a.discounted_echoes);
    }

    #[test]
    fn empty_composites_are_vacuous() {
        assert_eq!(all(vec![]).outcome, Detected);
        assert_eq!(any(vec![]).outcome, NotDetected);
    }

    #[test]
    fn nested_entries_propagate_and_collapse_repeats() {
        let u = leaf(Undetermined, "u");
        let e = any(vec![all(vec![u.clone(), leaf(Detected, "d")]), not(u)]);
        assert_eq!(e.outcome, Undetermined);
        assert_eq!(e.undetermined_operands.len(), 1);
    }
}
