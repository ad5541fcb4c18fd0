//! Compiling a [`Predicate`] once (regexes, schemas, pointers) and
//! evaluating it over traces (SPEC §3.1, §3.2).

use pactum_core::contract::{describe_count, FieldMatch, Predicate, TextMatch};
use pactum_core::outcome::{self, Evaluation, Evidence, Outcome};
use pactum_core::trace::{Channel, Trace};
use regex::Regex;

use crate::calls::{SideEffectPredicate, ToolCalled, ToolSequence};
use crate::error::{EvalError, Site};
use crate::response::{ResponseCheck, ResponsePredicate};
use crate::scope::redaction_note;
use crate::text::{TextMatcher, TextPredicate};
use crate::value::{insensitive_literal, CompiledValueMatch};

/// A predicate compiled for evaluation. Cheap to evaluate many times;
/// `Send + Sync`, so one compiled contract can grade traces on many
/// threads.
#[derive(Debug, Clone)]
pub struct CompiledPredicate {
    node: Node,
    describe: String,
}

#[derive(Debug, Clone)]
enum Node {
    All(Vec<CompiledPredicate>),
    Any(Vec<CompiledPredicate>),
    Not(Box<CompiledPredicate>),
    Text(TextPredicate),
    ToolCalled(ToolCalled),
    ToolSequence(ToolSequence),
    SideEffect(SideEffectPredicate),
    Response(ResponsePredicate),
    TurnCount {
        range: pactum_core::contract::CountRange,
        describe: String,
    },
    Field {
        pointer: String,
        matcher: Box<CompiledValueMatch>,
        describe: String,
    },
}

impl CompiledPredicate {
    /// The predicate's one-line description ([`Predicate::describe`]).
    pub fn describe(&self) -> &str {
        &self.describe
    }

    /// Compiles `pred` on its own (error pointers relative to it, no
    /// clause).
    ///
    /// # Errors
    /// [`EvalError`] for a regex that does not compile, an invalid JSON
    /// Schema, or a `field` pointer that is not a JSON pointer.
    pub fn compile(pred: &Predicate) -> Result<Self, EvalError> {
        Self::compile_at(pred, &Site::root(None, ""))
    }

    pub(crate) fn compile_at(pred: &Predicate, site: &Site) -> Result<Self, EvalError> {
        let here = site.child(pred.kind_name());
        let node = match pred {
            Predicate::All(ps) => Node::All(compile_list(ps, &here)?),
            Predicate::Any(ps) => Node::Any(compile_list(ps, &here)?),
            Predicate::Not(p) => Node::Not(Box::new(Self::compile_at(p, &here)?)),
            Predicate::Contains(m) => {
                Node::Text(text(pred, m, TextMatcher::Literal(m.text.clone())))
            }
            Predicate::Icontains(m) => {
                let re = insensitive_literal(&m.text)
                    .map_err(|e| here.child("text").regex_error(&m.text, e))?;
                Node::Text(text(pred, m, TextMatcher::Pattern(re)))
            }
            Predicate::Equals(m) => {
                Node::Text(text(pred, m, TextMatcher::Whole(m.text.trim().to_string())))
            }
            Predicate::Regex(m) => {
                let re = Regex::new(&m.pattern)
                    .map_err(|e| here.child("pattern").regex_error(&m.pattern, e))?;
                Node::Text(TextPredicate {
                    matcher: TextMatcher::Pattern(re),
                    source: m.source,
                    turns: m.turns,
                    echo: m.echo,
                    describe: pred.describe(),
                })
            }
            Predicate::ToolCalled(t) => {
                Node::ToolCalled(ToolCalled::compile(t, &here, pred.describe())?)
            }
            Predicate::ToolSequence(steps) => {
                Node::ToolSequence(ToolSequence::compile(steps, &here, pred.describe())?)
            }
            Predicate::SideEffect(e) => {
                Node::SideEffect(SideEffectPredicate::compile(e, &here, pred.describe())?)
            }
            Predicate::Refusal(r) => Node::Response(ResponsePredicate {
                check: ResponseCheck::Refusal(r.kind),
                turns: r.turns,
                describe: pred.describe(),
            }),
            Predicate::JsonValid(r) => Node::Response(ResponsePredicate {
                check: ResponseCheck::JsonValid,
                turns: r.turns,
                describe: pred.describe(),
            }),
            Predicate::JsonSchema(j) => {
                let validator = crate::schema::compile_json_schema(&j.schema).map_err(|e| {
                    EvalError::InvalidSchema {
                        clause: site.clause.clone(),
                        pointer: here.child("schema").pointer,
                        message: pactum_core::text::one_line(&e.to_string(), 300),
                    }
                })?;
                Node::Response(ResponsePredicate {
                    check: ResponseCheck::JsonSchema(Box::new(validator)),
                    turns: j.turns,
                    describe: pred.describe(),
                })
            }
            Predicate::TurnCount(range) => Node::TurnCount {
                range: *range,
                describe: pred.describe(),
            },
            Predicate::Field(FieldMatch { pointer, matcher }) => {
                here.child("pointer").check_pointer(pointer)?;
                Node::Field {
                    pointer: pointer.clone(),
                    matcher: Box::new(CompiledValueMatch::compile_at(matcher.clone(), &here)?),
                    describe: pred.describe(),
                }
            }
        };
        Ok(CompiledPredicate {
            node,
            describe: pred.describe(),
        })
    }

    /// Evaluates over `trace`. Never fails and never panics: whatever the
    /// trace holds, the answer is `D`, `N` or `U` with a rationale.
    /// Composites evaluate every operand (no short-circuit), so every `U`
    /// operand is recorded (SPEC §3.1).
    pub fn evaluate(&self, trace: &Trace) -> Evaluation {
        match &self.node {
            Node::All(ps) => outcome::all(ps.iter().map(|p| p.evaluate(trace)).collect()),
            Node::Any(ps) => outcome::any(ps.iter().map(|p| p.evaluate(trace)).collect()),
            Node::Not(p) => outcome::not(p.evaluate(trace)),
            Node::Text(t) => t.evaluate(trace),
            Node::ToolCalled(t) => t.evaluate(trace),
            Node::ToolSequence(t) => t.evaluate(trace),
            Node::SideEffect(t) => t.evaluate(trace),
            Node::Response(t) => match t.check {
                ResponseCheck::JsonValid | ResponseCheck::JsonSchema(_) => {
                    evaluate_unredacted(t, trace)
                }
                ResponseCheck::Refusal(_) => t.evaluate(trace),
            },
            Node::TurnCount { range, describe } => {
                let n = trace.turns.len() as u64;
                let held = range.contains(n, 0);
                let outcome = if held {
                    Outcome::Detected
                } else {
                    Outcome::NotDetected
                };
                Evaluation::settled(
                    outcome,
                    vec![],
                    format!(
                        "{describe}: the trace has {n} turn(s); count {} {}",
                        describe_count(range, 0),
                        if held { "holds" } else { "does not hold" }
                    ),
                )
            }
            Node::Field {
                pointer,
                matcher,
                describe,
            } => {
                let value = trace.field(pointer);
                let held = matcher.matches(value);
                let shown = value.map_or("absent".to_string(), pactum_core::contract::short_json);
                let evidence = vec![Evidence::Field {
                    pointer: pointer.clone(),
                    value: value.cloned().unwrap_or(serde_json::Value::Null),
                }];
                Evaluation::settled(
                    if held {
                        Outcome::Detected
                    } else {
                        Outcome::NotDetected
                    },
                    evidence,
                    format!(
                        "{describe}: the value is {shown}, which {}",
                        if held { "matches" } else { "does not match" }
                    ),
                )
            }
        }
    }
}

/// A JSON check over `trace`, where a response pactum redacted a secret
/// from reads as unrecorded: the replacement changed its length and
/// content, so whether the target's own text parsed or conformed cannot
/// be told there (a turn elsewhere still decides, by the turn scope).
fn evaluate_unredacted(t: &ResponsePredicate, trace: &Trace) -> Evaluation {
    let hidden: Vec<usize> = trace
        .redactions()
        .into_iter()
        .filter(|r| r.channel == Channel::Response)
        .map(|r| r.turn)
        .collect();
    if hidden.is_empty() {
        return t.evaluate(trace);
    }
    let mut view = trace.clone();
    for &k in &hidden {
        if let Some(turn) = view.turns.get_mut(k - 1) {
            turn.response = None;
        }
    }
    let e = t.evaluate(&view);
    if e.outcome != Outcome::Undetermined {
        return e;
    }
    Evaluation::undetermined(
        t.describe.clone(),
        format!(
            "{}; {} (read as not recorded)",
            e.rationale,
            redaction_note(Channel::Response, &hidden)
        ),
        None,
    )
}

fn compile_list(ps: &[Predicate], site: &Site) -> Result<Vec<CompiledPredicate>, EvalError> {
    ps.iter()
        .enumerate()
        .map(|(i, p)| CompiledPredicate::compile_at(p, &site.child(i.to_string())))
        .collect()
}

fn text(pred: &Predicate, m: &TextMatch, matcher: TextMatcher) -> TextPredicate {
    TextPredicate {
        matcher,
        source: m.source,
        turns: m.turns,
        echo: m.echo,
        describe: pred.describe(),
    }
}

/// Evaluates `pred` over `trace`, compiling it on the fly. For tests and
/// one-offs; grading compiles each contract once ([`crate::CompiledContract`]).
///
/// # Errors
/// As [`CompiledPredicate::compile`].
pub fn evaluate_predicate(pred: &Predicate, trace: &Trace) -> Result<Evaluation, EvalError> {
    Ok(CompiledPredicate::compile(pred)?.evaluate(trace))
}
