//! Judging the judged clauses of a trace (SPEC §3.4), through the cache,
//! and handing the answers to grading. Shared by `pactum run` and
//! `pactum grade`.

use std::collections::BTreeMap;

use pactum_core::contract::{ClauseKind, Contract};
use pactum_core::judge::JudgeAnswer;
use pactum_core::trace::Trace;
use pactum_eval::{CompiledContract, Judgments};
use pactum_llm::{
    cache_key, combine_windows, judge_plan, judge_window, AnswerText, ChatClient, JudgeRecord,
    JudgedClause, JUDGE_PROMPT_VERSION,
};
use pactum_store::CacheKind;

use crate::cache::Cache;
use crate::error::RunError;

/// A configured judge.
#[derive(Clone)]
pub struct JudgeSetup {
    /// The OpenAI-compatible client (its limits are shared by every task).
    pub client: ChatClient,
    /// How many times malformed output is retried before `judge-error`.
    pub malformed_retries: u32,
}

/// The judge's answers for one trace, as grading reads them.
#[derive(Debug, Default)]
pub struct TraceJudgments {
    configured: bool,
    answers: BTreeMap<(String, String), JudgeAnswer>,
}

impl Judgments for TraceJudgments {
    fn configured(&self) -> bool {
        self.configured
    }

    fn answer(&self, contract_id: &str, clause_id: &str) -> Option<JudgeAnswer> {
        self.answers
            .get(&(contract_id.to_string(), clause_id.to_string()))
            .cloned()
    }
}

/// One raw judge answer, for the store.
#[derive(Debug, Clone)]
pub struct RawJudgeAnswer {
    /// The contract graded.
    pub contract_id: String,
    /// The clause graded.
    pub clause_id: String,
    /// The turn after which a multi-turn check judged it (SPEC §3.7);
    /// `None` for the final grading over the whole transcript.
    pub turn: Option<u32>,
    /// 1-based attempt within its window (the request digest tells the
    /// windows of a long transcript apart).
    pub attempt: u32,
    /// The request's cache key.
    pub request_digest: String,
    /// The judge's text as received (or the transport error).
    pub raw_answer: String,
    /// The graded outcome (on the answer that parsed), or why this answer
    /// gave none: it did not parse, or the request failed.
    pub parsed: Result<serde_json::Value, String>,
}

/// How many judge calls went to the network and how many came from the
/// cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JudgeCalls {
    /// Requests sent (each malformed retry counts).
    pub network: u32,
    /// Windows (a whole transcript, or one window of a long one) answered
    /// from the cache.
    pub cached: u32,
}

/// The clauses of `contract` that carry a judge rubric, as the judge sees
/// them (a conditional is judged as its `then` clause).
pub fn judged_clauses(contract: &Contract) -> Vec<JudgedClause> {
    let mut out = Vec::new();
    for (kind, list) in [
        (ClauseKind::Required, &contract.required),
        (ClauseKind::Prohibited, &contract.prohibited),
    ] {
        for c in list {
            if let Some(rubric) = &c.judge {
                out.push(JudgedClause {
                    id: c.id.clone(),
                    kind,
                    text: c.text.clone(),
                    severity: c.severity,
                    rubric: rubric.clone(),
                });
            }
        }
    }
    for c in &contract.conditional {
        if let Some(rubric) = &c.then.judge {
            out.push(JudgedClause {
                id: c.id.clone(),
                kind: c.then.kind,
                text: c.then.text.clone(),
                severity: c.then.severity,
                rubric: rubric.clone(),
            });
        }
    }
    out
}

/// Judges every judged clause (of kind `only`, when given) of every
/// contract that selects `trace` (SPEC §3.4). Each clause is judged in the
/// windows of [`pactum_llm::judge_plan`], one after the other through the
/// client's concurrency and rate limits; each window's answer comes from
/// the cache when it can (keyed by its request), and the windows' answers
/// combine with [`pactum_llm::combine_windows`]. A judge failure is kept
/// as a failure (never a verdict) and never cached, so a re-run retries
/// that window only. The confidence threshold is not applied here but in
/// grading, so a cached answer serves every policy.
///
/// # Errors
/// Only a store failure; judge failures are answers.
pub async fn judge_trace(
    judge: Option<&JudgeSetup>,
    contracts: &[&CompiledContract],
    trace: &Trace,
    cache: &Cache,
    only: Option<ClauseKind>,
) -> Result<(TraceJudgments, Vec<RawJudgeAnswer>, JudgeCalls), RunError> {
    let mut out = TraceJudgments {
        configured: judge.is_some(),
        answers: BTreeMap::new(),
    };
    let mut raws = Vec::new();
    let mut calls = JudgeCalls::default();
    let Some(judge) = judge else {
        return Ok((out, raws, calls));
    };
    for contract in contracts.iter().filter(|c| c.selects(trace)) {
        let contract_id = contract.contract().id.clone();
        for clause in judged_clauses(contract.contract()) {
            if only.is_some_and(|k| k != clause.kind) {
                continue;
            }
            let plan = judge_plan(&clause, trace);
            let mut answers = Vec::with_capacity(plan.requests.len());
            for req in &plan.requests {
                let key = cache_key(judge.client.endpoint(), req, JUDGE_PROMPT_VERSION);
                let cached: Option<JudgeRecord> = cache
                    .get(&key)
                    .await?
                    .and_then(|v| serde_json::from_value(v).ok());
                let record = match cached {
                    Some(r) => {
                        calls.cached += 1;
                        r
                    }
                    None => {
                        let r = judge_window(
                            &judge.client,
                            &clause,
                            trace,
                            req,
                            judge.malformed_retries,
                        )
                        .await;
                        calls.network += u32::try_from(r.raw_answers.len()).unwrap_or(u32::MAX);
                        let transient = matches!(
                            &r.outcome,
                            JudgeAnswer::Failed { reason, .. }
                                if *reason == pactum_core::NotEvaluableReason::JudgeError
                        );
                        if !transient {
                            if let Ok(mut v) = serde_json::to_value(&r) {
                                // A judge's words may hold a key it made
                                // up or echoed: the store keeps none
                                // (SPEC §4), as no report shows one.
                                // An answer whose keys cannot be
                                // redacted is not kept.
                                let keys = pactum_core::secret::json_key_tokens(&v);
                                let kept = keys.is_empty()
                                    || pactum_core::secret::Redactor::new(keys)
                                        .map(|r| r.redact_value(&mut v))
                                        .is_ok();
                                if kept {
                                    cache.put(&key, CacheKind::Judge, v).await?;
                                }
                            }
                        }
                        r
                    }
                };
                let outcome_json = serde_json::to_value(&record.outcome)
                    .map_err(|e| format!("the outcome could not be encoded: {e}"));
                for (i, raw) in record.raw_answers.iter().enumerate() {
                    let (text, parsed) = match &raw.content_or_error {
                        AnswerText::Content(s) => (s.clone(), outcome_json.clone()),
                        AnswerText::Malformed { content, error } => {
                            (content.clone(), Err(format!("did not parse: {error}")))
                        }
                        AnswerText::Error(e) => (e.clone(), Err(format!("request failed: {e}"))),
                    };
                    raws.push(RawJudgeAnswer {
                        contract_id: contract_id.clone(),
                        clause_id: clause.id.clone(),
                        turn: None,
                        attempt: u32::try_from(i + 1).unwrap_or(u32::MAX),
                        request_digest: raw.request_digest.clone(),
                        raw_answer: text,
                        parsed,
                    });
                }
                answers.push(record.outcome);
            }
            out.answers.insert(
                (contract_id.clone(), clause.id.clone()),
                combine_windows(clause.kind, &plan.windows, answers),
            );
        }
    }
    Ok((out, raws, calls))
}
