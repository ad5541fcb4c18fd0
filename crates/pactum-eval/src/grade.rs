//! Grading a trace against contracts (SPEC §3.3–§3.5): clause verdicts
//! from checks and judges, conditionals, scores and the test status.

use pactum_core::contract::{ClauseKind, Contract, FieldMatch, CONTRACT_SCHEMA_VERSION};
use pactum_core::judge::{JudgeAnswer, UsableVerdict};
use pactum_core::outcome::{merge_echoes, Evaluation, Outcome, UndeterminedOperand};
use pactum_core::policy::Policy;
use pactum_core::result::{ContractResult, TraceResult};
use pactum_core::score::overall_score;
use pactum_core::status::decide;
use pactum_core::trace::Trace;
use pactum_core::verdict::{
    grade_clause, suggestion_for, ClauseHead, ClauseResult, NotEvaluableReason, Verdict,
};

use crate::error::{EvalError, Site};
use crate::predicate::CompiledPredicate;
use crate::value::CompiledValueMatch;

/// The judge's answers for one trace, looked up by contract and clause id
/// (SPEC §3.4: verdicts are aligned to clauses by id).
pub trait Judgments {
    /// Whether a judge is configured at all. `false` → every judged clause
    /// is `not_evaluable` with reason `no-judge`.
    fn configured(&self) -> bool;
    /// The answer for one clause; `None` when the judge returned none for
    /// it (`no-verdict`).
    fn answer(&self, contract_id: &str, clause_id: &str) -> Option<JudgeAnswer>;
}

/// No judge configured: judged clauses are `not_evaluable` (`no-judge`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoJudge;

impl Judgments for NoJudge {
    fn configured(&self) -> bool {
        false
    }
    fn answer(&self, _contract_id: &str, _clause_id: &str) -> Option<JudgeAnswer> {
        None
    }
}

/// A contract ready to grade traces: its checks, its `select` matcher and
/// its digest compiled once.
#[derive(Debug, Clone)]
pub struct CompiledContract {
    contract: Contract,
    digest: String,
    select: Option<(String, CompiledValueMatch)>,
    required: Vec<Option<CompiledPredicate>>,
    prohibited: Vec<Option<CompiledPredicate>>,
    conditional: Vec<(CompiledPredicate, Option<CompiledPredicate>)>,
}

impl CompiledContract {
    /// Compiles every check of `contract`; `digest` is the `sha256:` digest
    /// the results will cite (computed by the caller from the file).
    ///
    /// # Errors
    /// [`EvalError`] naming the clause and a JSON pointer into the contract
    /// for the first regex, schema or pointer that does not compile;
    /// [`EvalError::UnsupportedVersion`] for a version other than
    /// [`CONTRACT_SCHEMA_VERSION`].
    pub fn compile(contract: Contract, digest: String) -> Result<Self, EvalError> {
        if contract.version != CONTRACT_SCHEMA_VERSION {
            return Err(EvalError::UnsupportedVersion {
                what: "contract",
                found: contract.version,
                supported: CONTRACT_SCHEMA_VERSION,
            });
        }
        let select = match &contract.select {
            Some(FieldMatch { pointer, matcher }) => {
                let site = Site::root(None, "/select");
                site.child("pointer").check_pointer(pointer)?;
                Some((
                    pointer.clone(),
                    CompiledValueMatch::compile_at(matcher.clone(), &site)?,
                ))
            }
            None => None,
        };
        let checks = |list: &[pactum_core::Clause], key: &str| {
            list.iter()
                .enumerate()
                .map(|(i, c)| {
                    let site = Site::root(Some(&c.id), format!("/{key}/{i}/check"));
                    c.check
                        .as_ref()
                        .map(|p| CompiledPredicate::compile_at(p, &site))
                        .transpose()
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let required = checks(&contract.required, "required")?;
        let prohibited = checks(&contract.prohibited, "prohibited")?;
        let conditional = contract
            .conditional
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let when = CompiledPredicate::compile_at(
                    &c.when,
                    &Site::root(Some(&c.id), format!("/conditional/{i}/when")),
                )?;
                let site = Site::root(Some(&c.id), format!("/conditional/{i}/then/check"));
                let then = c
                    .then
                    .check
                    .as_ref()
                    .map(|p| CompiledPredicate::compile_at(p, &site))
                    .transpose()?;
                Ok((when, then))
            })
            .collect::<Result<Vec<_>, EvalError>>()?;
        Ok(CompiledContract {
            contract,
            digest,
            select,
            required,
            prohibited,
            conditional,
        })
    }

    /// The contract as written.
    pub fn contract(&self) -> &Contract {
        &self.contract
    }

    /// The digest results cite.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Whether this contract grades `trace`: its `select` matcher holds on
    /// the trace's metadata at `select.pointer`; no `select` → every trace.
    pub fn selects(&self, trace: &Trace) -> bool {
        match &self.select {
            Some((pointer, m)) => m.matches(trace.field(pointer)),
            None => true,
        }
    }

    /// Grades every declared clause of this contract over `trace`, in
    /// declaration order (required, prohibited, conditional). Does not look
    /// at `trace.error` or whether a response exists: [`grade_trace`] does.
    ///
    /// A trace that ended by a marker ([`Trace::ended_by`]) is graded
    /// without its last turn when that turn recorded neither a response
    /// nor a tool call: it holds the marker message that closed the
    /// conversation, which the target was not meant to answer, so it is
    /// neither a missing answer (undetermined) nor the final turn.
    pub fn grade(&self, trace: &Trace, policy: &Policy, judge: &dyn Judgments) -> ContractResult {
        let c = &self.contract;
        let mut clauses = Vec::with_capacity(c.clause_count());
        let answered = answered_part(trace);
        let ctx = Ctx {
            contract_id: &c.id,
            trace: &answered,
            policy,
            judge,
        };
        for (kind, list, checks) in [
            (ClauseKind::Required, &c.required, &self.required),
            (ClauseKind::Prohibited, &c.prohibited, &self.prohibited),
        ] {
            for (clause, check) in list.iter().zip(checks) {
                let head = ClauseHead {
                    id: &clause.id,
                    kind,
                    conditional: false,
                    text: &clause.text,
                    severity: clause.severity,
                };
                clauses.push(ctx.behaviour(head, check.as_ref(), clause.judge.as_deref()));
            }
        }
        for (clause, (when, then)) in c.conditional.iter().zip(&self.conditional) {
            let head = ClauseHead {
                id: &clause.id,
                kind: clause.then.kind,
                conditional: true,
                text: &clause.then.text,
                severity: clause.then.severity,
            };
            clauses.push(ctx.conditional(head, when, then.as_ref(), clause.then.judge.as_deref()));
        }
        ContractResult::new(c.id.clone(), self.digest.clone(), clauses)
    }

    fn not_graded(&self, reason: &str) -> ContractResult {
        let c = &self.contract;
        let heads = c
            .required
            .iter()
            .map(|x| (x, ClauseKind::Required))
            .chain(c.prohibited.iter().map(|x| (x, ClauseKind::Prohibited)))
            .map(|(x, kind)| (x.id.as_str(), kind, false, x.text.as_str(), x.severity))
            .chain(c.conditional.iter().map(|x| {
                (
                    x.id.as_str(),
                    x.then.kind,
                    true,
                    x.then.text.as_str(),
                    x.then.severity,
                )
            }));
        let clauses = heads
            .map(|(id, kind, conditional, text, severity)| {
                let head = ClauseHead {
                    id,
                    kind,
                    conditional,
                    text,
                    severity,
                };
                let mut r = grade_clause(
                    head,
                    Evaluation::undetermined("response", format!("not graded: {reason}"), None),
                    NotEvaluableReason::NoResponse,
                );
                r.undetermined_operands.clear();
                r
            })
            .collect();
        ContractResult::new(c.id.clone(), self.digest.clone(), clauses)
    }
}

struct Ctx<'a> {
    contract_id: &'a str,
    trace: &'a Trace,
    policy: &'a Policy,
    judge: &'a dyn Judgments,
}

impl Ctx<'_> {
    /// Evaluates a check over the trace. On an incomplete recording an
    /// absence proves nothing: `N` becomes `U`, naming why (a detection
    /// still counts; SPEC §3.2's rule, applied to time instead of channels).
    fn check(&self, p: &CompiledPredicate) -> Evaluation {
        let e = p.evaluate(self.trace);
        match (incompleteness(self.trace), e.outcome) {
            (Some(why), Outcome::NotDetected) => {
                let reason = format!(
                    "incomplete recording ({why}): finding nothing there proves nothing; looked for {}",
                    p.describe()
                );
                let mut u = Evaluation::undetermined(p.describe(), reason, None);
                for op in e.undetermined_operands {
                    if !u.undetermined_operands.contains(&op) {
                        u.undetermined_operands.push(op);
                    }
                }
                u.discounted_echoes = e.discounted_echoes;
                u
            }
            _ => e,
        }
    }

    /// The judge's answer for one clause, through the policy's confidence
    /// threshold ([`JudgeAnswer::usable`]), or why it cannot be used. A
    /// judge that did not see the behaviour on a transcript pactum
    /// redacted a secret from never saw what was replaced: its "not
    /// detected" is `redacted-secret` (SPEC §3.4: evidence pactum did not
    /// show the judge is never read as absence); a detection stands.
    fn judged(&self, head: &ClauseHead<'_>) -> Result<UsableVerdict, (NotEvaluableReason, String)> {
        if !self.judge.configured() {
            return Err((NotEvaluableReason::NoJudge, "no judge is configured".into()));
        }
        let usable = match self.judge.answer(self.contract_id, head.id) {
            None => Err((
                NotEvaluableReason::NoVerdict,
                "the judge returned no verdict for this clause".into(),
            )),
            Some(answer) => answer.usable(head.kind, self.policy.confidence_threshold),
        }?;
        let hidden = self.trace.redactions();
        if usable.outcome == Outcome::NotDetected && !hidden.is_empty() {
            let shown: Vec<String> = hidden.iter().take(4).map(ToString::to_string).collect();
            let more = if hidden.len() > 4 {
                format!(" and {} more", hidden.len() - 4)
            } else {
                String::new()
            };
            return Err((
                NotEvaluableReason::RedactedSecret,
                format!(
                    "the judge did not see the behaviour (`{}` at {}), but pactum redacted a secret it holds from the target's answers before the judge read them ({}{more}): what it replaced was never shown to the judge",
                    usable.verdict.as_str(),
                    usable.confidence,
                    shown.join(", ")
                ),
            ));
        }
        Ok(usable)
    }

    /// Grades one behaviour from its check, its judge rubric, or both:
    /// the behaviour is detected when either detects it, Kleene
    /// `check | judge` ([`Outcome::or`], SPEC §3.1, §3.4). The verdict is
    /// the judge's (with its confidence and quotes) when the judge's
    /// answer decides the outcome, else the check's; an undetermined
    /// judge is recorded as an undetermined operand whatever decides.
    fn behaviour(
        &self,
        head: ClauseHead<'_>,
        check: Option<&CompiledPredicate>,
        rubric: Option<&str>,
    ) -> ClauseResult {
        let eval = check.map(|p| self.check(p));
        if rubric.is_none() {
            return match eval {
                Some(e) => grade_clause(head, e, NotEvaluableReason::Undetermined),
                None => {
                    let mut r = grade_clause(
                        head,
                        Evaluation::undetermined(
                            "clause",
                            "the clause has neither a check nor a judge rubric",
                            None,
                        ),
                        NotEvaluableReason::NoCheck,
                    );
                    r.undetermined_operands.clear();
                    r
                }
            };
        }
        let judged = self.judged(&head);
        // No check is the identity of `|`: not detected.
        let check_outcome = eval.as_ref().map_or(Outcome::NotDetected, |e| e.outcome);
        let judge_outcome = judged.as_ref().map_or(Outcome::Undetermined, |u| u.outcome);
        let outcome = check_outcome.or(judge_outcome);
        let mut operands = eval
            .as_ref()
            .map(|e| e.undetermined_operands.clone())
            .unwrap_or_default();
        if let Err((_, detail)) = &judged {
            operands.push(UndeterminedOperand {
                predicate: "judge".into(),
                reason: detail.clone(),
                channel: None,
            });
        }
        let check_note = eval
            .as_ref()
            .map(|e| format!("; check: {}", e.rationale))
            .unwrap_or_default();
        let check_echoes = eval
            .as_ref()
            .map(|e| e.discounted_echoes.clone())
            .unwrap_or_default();
        match (outcome, judged) {
            // The check decided (D, whatever the judge said).
            (Outcome::Detected, _) if check_outcome == Outcome::Detected => {
                let e = eval
                    .unwrap_or_else(|| Evaluation::settled(Outcome::Detected, vec![], "detected"));
                let mut r = grade_clause(head, e, NotEvaluableReason::Undetermined);
                r.undetermined_operands = operands;
                r
            }
            // The judge decided: D, or N with a check that found nothing.
            (Outcome::Detected | Outcome::NotDetected, Ok(u)) => ClauseResult {
                id: head.id.to_string(),
                kind: head.kind,
                conditional: head.conditional,
                text: head.text.to_string(),
                severity: head.severity,
                verdict: u.verdict,
                confidence: u.confidence,
                outcome,
                evidence: u.evidence,
                rationale: format!("judge ({}): {}{check_note}", u.confidence, u.rationale),
                undetermined_operands: operands,
                discounted_echoes: check_echoes,
                reason: None,
                suggestion: None,
            },
            // Undetermined: the judge's failure, or the check's gap that a
            // judge's "not detected" cannot settle (U | N = U).
            (_, judged) => {
                let (reason, rationale) = match judged {
                    Err((reason, detail)) => (reason, format!("judge: {detail}{check_note}")),
                    Ok(u) => (
                        NotEvaluableReason::Undetermined,
                        format!(
                            "the check could not tell and the judge did not detect the behaviour \
                             (judge: {} at {}), so the check's gap stands{check_note}",
                            u.verdict.as_str(),
                            u.confidence
                        ),
                    ),
                };
                let e = Evaluation {
                    outcome: Outcome::Undetermined,
                    evidence: vec![],
                    rationale,
                    undetermined_operands: operands,
                    discounted_echoes: check_echoes,
                };
                grade_clause(head, e, reason)
            }
        }
    }

    /// SPEC §3.3: `when` D → grade `then`; N → not triggered; U → not
    /// evaluable.
    fn conditional(
        &self,
        head: ClauseHead<'_>,
        when: &CompiledPredicate,
        then: Option<&CompiledPredicate>,
        rubric: Option<&str>,
    ) -> ClauseResult {
        let cond = self.check(when);
        match cond.outcome {
            Outcome::Detected => {
                let mut r = self.behaviour(head, then, rubric);
                r.rationale = format!("condition held ({}); {}", cond.rationale, r.rationale);
                merge_operands(&mut r.undetermined_operands, cond.undetermined_operands);
                merge_echoes(&mut r.discounted_echoes, cond.discounted_echoes);
                r
            }
            Outcome::NotDetected => ClauseResult {
                id: head.id.to_string(),
                kind: head.kind,
                conditional: true,
                text: head.text.to_string(),
                severity: head.severity,
                verdict: Verdict::NotTriggered,
                confidence: 100,
                outcome: Outcome::NotDetected,
                evidence: cond.evidence,
                rationale: format!(
                    "not triggered: the condition did not hold, so this path was not taken ({})",
                    cond.rationale
                ),
                undetermined_operands: cond.undetermined_operands,
                discounted_echoes: cond.discounted_echoes,
                reason: None,
                suggestion: None,
            },
            Outcome::Undetermined => {
                let mut r = grade_clause(head, cond, NotEvaluableReason::Undetermined);
                r.rationale = format!("could not tell whether the condition held: {}", r.rationale);
                r.suggestion = Some(suggestion_for(
                    NotEvaluableReason::Undetermined,
                    &r.undetermined_operands,
                ));
                r
            }
        }
    }
}

/// The clauses of `graded` that are violated prohibitions — positive
/// evidence of a forbidden behaviour — and `not_graded`'s entry for every
/// other clause (same declaration order). A required clause "violated"
/// because its behaviour was not seen is an absence, and proves nothing on
/// a trace whose target failed.
fn keep_violations(graded: ContractResult, not_graded: ContractResult) -> ContractResult {
    let clauses = graded
        .clauses
        .into_iter()
        .zip(not_graded.clauses)
        .map(|(g, n)| {
            if g.is_violation() && g.kind == ClauseKind::Prohibited {
                g
            } else {
                n
            }
        })
        .collect();
    ContractResult::new(graded.contract_id, graded.contract_digest, clauses)
}

/// `trace` without the closing marker turn of a trace that ended by a
/// marker (see [`CompiledContract::grade`]); `trace` itself otherwise.
fn answered_part(trace: &Trace) -> std::borrow::Cow<'_, Trace> {
    let closing = trace.ended_by.is_some()
        && trace
            .turns
            .last()
            .is_some_and(|t| t.response.is_none() && t.tool_calls.is_empty());
    if !closing {
        return std::borrow::Cow::Borrowed(trace);
    }
    let mut t = trace.clone();
    t.turns.pop();
    std::borrow::Cow::Owned(t)
}

/// Why the recording of `trace` cannot show everything the target did:
/// it says so itself (`incomplete`), or a turn recorded nothing at all (no
/// response and no tool call: the target's answer to that input is
/// missing).
fn incompleteness(trace: &Trace) -> Option<String> {
    if let Some(why) = &trace.incomplete {
        return Some(why.clone());
    }
    trace
        .turns
        .iter()
        .position(|t| t.response.is_none() && t.tool_calls.is_empty())
        .map(|i| format!("turn {} recorded no response and no tool call", i + 1))
}

fn merge_operands(into: &mut Vec<UndeterminedOperand>, from: Vec<UndeterminedOperand>) {
    for u in from {
        if !into.contains(&u) {
            into.push(u);
        }
    }
}

/// The message a trace without any response is graded `error` with.
pub const NO_RESPONSE: &str =
    "no response recorded: a trace without a response is never evidence of compliance";

/// Grades one trace against every contract that selects it (SPEC §3.3–§3.5).
///
/// * No contract selects it → status `error` ("no contract selects this
///   trace", listing the contract ids), no contract results.
/// * `trace.error` set, or no response at all → status `error`; every
///   clause of every selected contract is listed `not_evaluable` with
///   reason `no-response`.
/// * Otherwise every declared clause is graded exactly once, in
///   declaration order; scores and status follow SPEC §3.5.
pub fn grade_trace(
    contracts: &[CompiledContract],
    trace: &Trace,
    policy: &Policy,
    judge: &dyn Judgments,
) -> TraceResult {
    let selected: Vec<&CompiledContract> = contracts.iter().filter(|c| c.selects(trace)).collect();
    let (results, error) = if selected.is_empty() {
        let ids: Vec<&str> = contracts.iter().map(|c| c.contract.id.as_str()).collect();
        let listed = if ids.is_empty() {
            "no contracts were given".to_string()
        } else {
            format!("contracts: {}", ids.join(", "))
        };
        (
            vec![],
            Some(format!("no contract selects this trace ({listed})")),
        )
    } else if let Some(e) = &trace.error {
        // What was recorded before the failure still counts: a violation
        // there is positive evidence and permanent (SPEC §3.2, §3.7). Every
        // other clause is not graded: an absence proves nothing here.
        let msg = format!("target error: {e}");
        let results: Vec<ContractResult> = selected
            .iter()
            .map(|c| keep_violations(c.grade(trace, policy, judge), c.not_graded(&msg)))
            .collect();
        let violated = results.iter().any(|r| {
            r.clauses
                .iter()
                .any(|c| c.verdict != pactum_core::Verdict::NotEvaluable)
        });
        if violated {
            let (status, summary) = decide(&results, None, policy);
            return TraceResult {
                trace_id: trace.id.clone(),
                source: trace.source.clone(),
                observability: trace.observability,
                status,
                summary: format!(
                    "{summary}; then the target failed: {}",
                    pactum_core::text::one_line_ends(e, 160)
                ),
                overall_score: overall_score(&results),
                contracts: results,
                error: Some(msg),
            };
        }
        (results, Some(msg))
    } else if !trace.has_response() {
        (
            selected.iter().map(|c| c.not_graded(NO_RESPONSE)).collect(),
            Some(NO_RESPONSE.to_string()),
        )
    } else {
        (
            selected
                .iter()
                .map(|c| c.grade(trace, policy, judge))
                .collect(),
            None,
        )
    };
    let (status, summary) = decide(&results, error.as_deref(), policy);
    TraceResult {
        trace_id: trace.id.clone(),
        source: trace.source.clone(),
        observability: trace.observability,
        status,
        summary,
        overall_score: overall_score(&results),
        contracts: results,
        error,
    }
}
