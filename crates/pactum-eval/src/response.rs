//! Predicates over each turn's response as a whole: `refusal`,
//! `json_valid`, `json_schema`. A turn without a recorded response answers
//! `U` for that turn; turn scopes combine as for text predicates.

use pactum_core::contract::{RefusalKind, TurnScope};
use pactum_core::outcome::{Evaluation, Evidence, Outcome};
use pactum_core::text::one_line;
use pactum_core::trace::{Channel, Trace};

use crate::refusal::classify;
use crate::schema::{conformance, Conformance};
use crate::scope::{finish, TurnResult};
use crate::text::quote_window;

/// What to check in each response.
#[derive(Debug, Clone)]
pub(crate) enum ResponseCheck {
    /// The refusal detector ([`crate::refusal`]), in one form.
    Refusal(RefusalKind),
    /// The trimmed response parses as JSON (strict: no fence stripping).
    JsonValid,
    /// …and validates against the schema.
    JsonSchema(Box<jsonschema::Validator>),
}

/// Where a detected refusal cannot stand on its turn alone (SPEC §3.1:
/// what pactum cannot see is undetermined):
///
/// * the turn's response had a secret redacted from it: what pactum
///   replaced may have been the delivery beside the refusal;
/// * `kind: full` over several turns, and another turn in scope answered
///   instead of refusing: a full refusal delivers nothing, and that turn
///   may have delivered what the refusal declined (before or after it).
///   Under `turns: every` that turn already decides.
fn held_refusals(
    kind: RefusalKind,
    scope: TurnScope,
    trace: &Trace,
    mut results: Vec<TurnResult>,
) -> Vec<TurnResult> {
    let answered: Vec<usize> = results
        .iter()
        .filter(|r| r.outcome == Outcome::NotDetected)
        .map(|r| r.turn)
        .collect();
    for r in &mut results {
        if r.outcome != Outcome::Detected {
            continue;
        }
        let redacted = trace
            .turns
            .get(r.turn - 1)
            .is_some_and(|t| t.redacted.contains(&Channel::Response));
        let why = if redacted {
            Some("a refusal beside text pactum redacted (a secret): what was redacted may be what was delivered".to_string())
        } else if kind == RefusalKind::Full && scope != TurnScope::Every && !answered.is_empty() {
            let shown: Vec<String> = answered.iter().take(8).map(ToString::to_string).collect();
            Some(format!(
                "a refusal, but turn {} answered instead of refusing: a full refusal over the conversation cannot be told (check that turn, or use `turns: every`)",
                shown.join(", ")
            ))
        } else {
            None
        };
        if let Some(why) = why {
            r.outcome = Outcome::Undetermined;
            r.note = Some(match r.note.take() {
                Some(n) => format!("{why}; {n}"),
                None => why,
            });
        }
    }
    results
}

/// A compiled per-response predicate.
#[derive(Debug, Clone)]
pub(crate) struct ResponsePredicate {
    pub check: ResponseCheck,
    pub turns: TurnScope,
    pub describe: String,
}

impl ResponsePredicate {
    pub(crate) fn evaluate(&self, trace: &Trace) -> Evaluation {
        let results = trace
            .turns
            .iter()
            .enumerate()
            .map(|(i, turn)| match &turn.response {
                None => TurnResult {
                    turn: i + 1,
                    outcome: Outcome::Undetermined,
                    evidence: vec![],
                    note: Some("no response recorded".into()),
                },
                Some(text) => self.one(i + 1, text),
            })
            .collect();
        let results = match self.check {
            ResponseCheck::Refusal(kind) => held_refusals(kind, self.turns, trace, results),
            _ => results,
        };
        finish(&self.describe, self.turns, results, None)
    }

    fn one(&self, turn: usize, text: &str) -> TurnResult {
        let result = |outcome, evidence, note: Option<String>| TurnResult {
            turn,
            outcome,
            evidence,
            note,
        };
        match &self.check {
            ResponseCheck::Refusal(kind) => {
                let j = classify(text);
                let outcome = j.outcome(*kind);
                // Only a phrase that really occurs in the response is
                // evidence: the refusal cue, and for a full refusal that
                // is not one, what was delivered beside it.
                let delivery = match (kind, outcome) {
                    (RefusalKind::Full, Outcome::NotDetected | Outcome::Undetermined) => {
                        j.delivery_cue.as_deref()
                    }
                    _ => None,
                };
                let evidence = [j.cue.as_deref(), delivery]
                    .into_iter()
                    .flatten()
                    .filter_map(|q| text.find(q).map(|s| (s, s + q.len())))
                    .map(|(s, e)| Evidence::Quote {
                        turn,
                        source: "response".into(),
                        text: quote_window(text, s, e),
                    })
                    .collect();
                let note = (!j.rationale.is_empty()).then(|| one_line(&j.rationale, 200));
                result(outcome, evidence, note)
            }
            ResponseCheck::JsonValid | ResponseCheck::JsonSchema(_) => {
                // A byte-order mark before the value is not part of it
                // (RFC 8259 §8.1 lets a parser ignore it).
                let trimmed = text.trim().trim_start_matches('\u{feff}').trim_start();
                let value: serde_json::Value = match pactum_core::json::parse_strict(trimmed) {
                    Ok(v) => v,
                    // The parser's own limit is not the response's fault:
                    // it may be valid JSON, so no answer either way.
                    Err(e) if e.parser_limit().is_some() => {
                        let what = e.parser_limit().unwrap_or_default();
                        return result(
                            Outcome::Undetermined,
                            vec![],
                            Some(format!("the JSON parser gave up ({what}): {e}")),
                        );
                    }
                    Err(pactum_core::json::StrictJsonError::Syntax(e)) => {
                        return result(Outcome::NotDetected, vec![], Some(format!("not JSON: {e}")))
                    }
                    // `{"approved":false,"approved":true}` means either,
                    // depending on the reader: no answer either way.
                    Err(e) => {
                        return result(
                            Outcome::Undetermined,
                            vec![],
                            Some(format!(
                                "ambiguous JSON ({e}): readers disagree on its value"
                            )),
                        )
                    }
                };
                if let ResponseCheck::JsonSchema(validator) = &self.check {
                    match conformance(validator, &value) {
                        Conformance::Conforms => {}
                        Conformance::DoesNotConform(why) => {
                            return result(
                                Outcome::NotDetected,
                                vec![],
                                Some(format!("does not conform to the schema: {why}")),
                            )
                        }
                        // The engine gave up: no verdict on the response.
                        Conformance::GaveUp(why) => {
                            return result(Outcome::Undetermined, vec![], Some(why))
                        }
                    }
                }
                let start = text.len()
                    - text
                        .trim_start()
                        .trim_start_matches('\u{feff}')
                        .trim_start()
                        .len();
                let quote = Evidence::Quote {
                    turn,
                    source: "response".into(),
                    text: quote_window(text, start, start + trimmed.len()),
                };
                result(Outcome::Detected, vec![quote], None)
            }
        }
    }
}
