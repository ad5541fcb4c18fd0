//! One trial: drive the conversation against the target (through the
//! cache) — scripted user turns, or a simulated user pursuing the
//! contract's objective — apply the stopping rule after every turn
//! (SPEC §3.7), then judge and grade the whole transcript. Never turns a
//! failure into a pass: a target that still fails after its retries ends
//! the trial `error` (infrastructure).

use std::sync::Arc;

use pactum_core::contract::ClauseKind;
use pactum_core::digest::digest_of;
use pactum_core::policy::Policy;
use pactum_core::result::TraceResult;
use pactum_core::trace::{Message, ObservabilityLevel, Role, Trace, Turn};
use pactum_core::ClauseResult;
use pactum_eval::{grade_trace, CompiledContract, NoJudge};
use pactum_interpret::{
    next_user_message, simulated_user_request, stop_decision, transcript_from_trace, with_basis,
    Basis, StopDecision, SIMULATED_USER_PROMPT_VERSION,
};
use pactum_llm::{cache_key, ChatClient};
use pactum_store::CacheKind;
use pactum_suite::AuthoredTest;
use pactum_target::{Conversation, Reply, Target};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::cache::{target_key_canonical, Cache};
use crate::error::RunError;
use crate::judge::{judge_trace, JudgeCalls, JudgeSetup, RawJudgeAnswer};

/// A target answer as the cache keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CachedReply {
    text: Option<String>,
    #[serde(default)]
    tool_calls: Vec<pactum_core::trace::ToolCall>,
    #[serde(default)]
    side_effects: Vec<pactum_core::trace::SideEffect>,
    #[serde(default)]
    conversation_id: Option<String>,
    #[serde(default)]
    usage: Option<pactum_core::trace::Usage>,
    #[serde(default)]
    latency_ms: u64,
    #[serde(default)]
    ended: bool,
    /// The channels pactum redacted a secret from: an answer read from the
    /// cache keeps the record it was stored with.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    redacted: std::collections::BTreeSet<pactum_core::trace::Channel>,
}

impl From<&Reply> for CachedReply {
    fn from(r: &Reply) -> Self {
        CachedReply {
            text: r.text.clone(),
            tool_calls: r.tool_calls.clone(),
            side_effects: r.side_effects.clone(),
            conversation_id: r.conversation_id.clone(),
            usage: r.usage,
            latency_ms: r.latency_ms,
            ended: r.ended,
            redacted: r.redacted.clone(),
        }
    }
}

impl CachedReply {
    /// Redacts the key-shaped tokens of the answer
    /// ([`pactum_core::secret::redaction_rule`]; the run's own keys were
    /// redacted by the target) before anything stores or reads it, and
    /// records the channels they were in, as for the run's keys.
    fn redact_key_tokens(mut self) -> Self {
        use pactum_core::secret::{json_key_tokens, key_tokens};
        let mut tokens: Vec<String> = self.text.as_deref().map(key_tokens).unwrap_or_default();
        for v in [
            serde_json::to_value(&self.tool_calls),
            serde_json::to_value(&self.side_effects),
        ]
        .into_iter()
        .flatten()
        {
            tokens.extend(json_key_tokens(&v));
        }
        if tokens.is_empty() {
            return self;
        }
        if let Ok(red) = pactum_core::secret::Redactor::new(&tokens) {
            let found = red.redact_answer(
                self.text.as_mut(),
                &mut self.tool_calls,
                &mut self.side_effects,
            );
            self.redacted.extend(found);
        }
        self
    }
}

/// What one test needs to run a trial, made from its `TestSpec` when the
/// trial starts (the runner holds the suite's tests, not a plan of each):
/// the target's name and the (usually empty) variables are shared behind
/// an `Arc`.
pub(crate) struct TestPlan {
    pub id: String,
    pub target_name: Arc<str>,
    pub target: Arc<Target>,
    /// The canonical JSON of the target's identity.
    pub identity: Arc<str>,
    /// Scripted user turns; empty when a simulated user drives.
    pub turns: Vec<String>,
    pub vars: Arc<Map<String, Value>>,
    /// The authored fields and turn bounds, for an authored test (boxed:
    /// most tests have none).
    pub authored: Option<Box<AuthoredTest>>,
}

/// A test's contract as resolved at the start of a run.
pub(crate) struct Resolved {
    /// Zero or one compiled contract.
    pub contracts: Arc<Vec<CompiledContract>>,
    /// Why the test cannot be scored (an unusable interpretation): its
    /// trials are `error` and its conversation is not run (SPEC §3.6).
    pub unusable: Option<String>,
    /// What the simulated user pursues (never scored).
    pub objective: Option<String>,
    /// Wording and pressure only (never a scoring rule).
    pub adversarial: bool,
    /// Interpretation provenance for the trace's metadata.
    pub interpretation: Value,
}

/// Network and cache use of one trial.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallCounts {
    /// Target turns sent over the network, answered or not.
    pub target_network: u32,
    /// Of those, turns that got no usable answer (the target unreachable,
    /// an HTTP error after the retries, a protocol error).
    pub target_failed: u32,
    /// Target turns answered from the cache.
    pub target_cached: u32,
    /// Simulated-user turns sent over the network.
    pub simulated_user_network: u32,
    /// Simulated-user turns answered from the cache.
    pub simulated_user_cached: u32,
    /// Judge calls.
    pub judge: JudgeCalls,
}

impl CallCounts {
    /// What happened to the target turns sent over the network, for the
    /// run's closing line: `12 sent`, or `9 sent (0 answered, 9 failed)`
    /// when some got no answer — a sent call is not an answered one.
    pub fn target_sent(&self) -> String {
        if self.target_failed == 0 {
            format!("{} sent", self.target_network)
        } else {
            format!(
                "{} sent ({} answered, {} failed)",
                self.target_network,
                self.target_network.saturating_sub(self.target_failed),
                self.target_failed
            )
        }
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &CallCounts) {
        self.target_network += other.target_network;
        self.target_failed += other.target_failed;
        self.target_cached += other.target_cached;
        self.simulated_user_network += other.simulated_user_network;
        self.simulated_user_cached += other.simulated_user_cached;
        self.judge.network += other.judge.network;
        self.judge.cached += other.judge.cached;
    }
}

/// Everything a finished trial produced.
pub(crate) struct TrialOutput {
    pub trace: Option<Trace>,
    pub result: TraceResult,
    pub judge_answers: Vec<RawJudgeAnswer>,
    pub calls: CallCounts,
}

/// Shared, read-only context of a run.
pub(crate) struct RunContext {
    pub run_id: String,
    pub cache: Cache,
    pub judge: Option<JudgeSetup>,
    pub simulated_user: Option<ChatClient>,
    pub policy: Policy,
}

/// Why a conversation ended (recorded in the trace's metadata).
fn end_reason(reason: &str, clause: Option<&str>) -> Value {
    match clause {
        Some(c) => json!({"reason": reason, "clause": c}),
        None => json!({"reason": reason}),
    }
}

pub(crate) async fn run_trial(
    ctx: &RunContext,
    test: &TestPlan,
    resolved: &Resolved,
    trial: u32,
) -> Result<TrialOutput, RunError> {
    let mut calls = CallCounts::default();
    let trace_id = crate::trace_id(&test.id, trial);
    if let Some(why) = &resolved.unusable {
        return Ok(TrialOutput {
            trace: None,
            result: error_result(&trace_id, test.target.observability(), why),
            judge_answers: vec![],
            calls,
        });
    }
    let level: ObservabilityLevel = test.target.observability();
    let vars = Value::Object(Map::clone(&test.vars));
    let conversation_id = format!("{}/{}/{}", ctx.run_id, test.id, trial + 1);
    // The stopping rule applies to authored (multi-turn) tests; a plain
    // scripted test runs its script.
    let (min_turns, max_turns) = match &test.authored {
        Some(a) => (a.min_turns, a.max_turns),
        None => (1, u32::try_from(test.turns.len()).unwrap_or(u32::MAX)),
    };
    let simulated = test.turns.is_empty();
    let mut messages: Vec<pactum_target::Message> = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut error = None;
    let mut ended = end_reason("max_turns", None);
    let mut target_conversation_id = None;
    let mut judge_answers = Vec::new();
    let mut turn_no: u32 = 0;
    while turn_no < max_turns {
        turn_no += 1;
        // The user's message: scripted, or from the simulated user.
        let user = if simulated {
            match next_simulated(
                ctx, resolved, test, &turns, turn_no, max_turns, trial, &mut calls,
            )
            .await?
            {
                Ok(m) => m,
                Err(e) => {
                    error = Some(e);
                    ended = end_reason("error", None);
                    break;
                }
            }
        } else {
            match test.turns.get(turn_no as usize - 1) {
                Some(u) => u.clone(),
                None => {
                    ended = end_reason("script_done", None);
                    break;
                }
            }
        };
        messages.push(pactum_target::Message {
            role: pactum_target::Role::User,
            content: user.clone(),
        });
        let sent = serde_json::to_value(&messages).unwrap_or(Value::Null);
        let key = target_key_canonical(&test.identity, &sent, &vars, turn_no, trial);
        let cached: Option<CachedReply> = ctx
            .cache
            .get(&key)
            .await?
            .and_then(|v| serde_json::from_value(v).ok());
        let reply = match cached {
            Some(r) => {
                calls.target_cached += 1;
                r.redact_key_tokens()
            }
            None => {
                let conv = Conversation {
                    id: conversation_id.clone(),
                    messages: messages.clone(),
                    target_conversation_id: target_conversation_id.clone(),
                    turn: turn_no,
                    vars: Map::clone(&test.vars),
                };
                calls.target_network += 1;
                match test.target.reply(&conv).await {
                    Ok(r) => {
                        let c = CachedReply::from(&r).redact_key_tokens();
                        if let Ok(v) = serde_json::to_value(&c) {
                            ctx.cache.put(&key, CacheKind::Target, v).await?;
                        }
                        c
                    }
                    Err(e) => {
                        calls.target_failed += 1;
                        // `e` names the target and the attempts already.
                        let e = e.to_string();
                        let red =
                            pactum_core::secret::Redactor::new(pactum_core::secret::key_tokens(&e))
                                .unwrap_or_default();
                        error = Some(format!("turn {turn_no}: {}", red.redact(&e)));
                        ended = end_reason("error", None);
                        turns.push(user_turn(&user));
                        break;
                    }
                }
            }
        };
        if reply.conversation_id.is_some() {
            target_conversation_id = reply.conversation_id.clone();
        }
        messages.push(pactum_target::Message {
            role: pactum_target::Role::Assistant,
            content: reply.text.clone().unwrap_or_default(),
        });
        turns.push(Turn {
            input: vec![Message {
                role: Role::User,
                content: user,
            }],
            response: reply.text,
            tool_calls: reply.tool_calls,
            side_effects: reply.side_effects,
            latency_ms: Some(reply.latency_ms),
            usage: reply.usage,
            redacted: reply.redacted,
        });
        if test.authored.is_some() {
            let partial = make_trace(&trace_id, &test.target, turns.clone(), json!({}), None);
            let (decision, raws) = stop_check(
                ctx,
                &resolved.contracts,
                &partial,
                turn_no,
                min_turns,
                max_turns,
                &mut calls,
            )
            .await?;
            judge_answers.extend(raws);
            match decision {
                StopDecision::Continue => {}
                StopDecision::StopViolation { clause_id } => {
                    ended = end_reason("violation", Some(&clause_id));
                    break;
                }
                StopDecision::StopMaxTurns => {
                    ended = end_reason("max_turns", None);
                    break;
                }
            }
        }
        if reply.ended {
            ended = end_reason("target_ended", None);
            break;
        }
    }
    test.target.close(&conversation_id).await;
    let mut metadata = json!({
        "test": test.id,
        "trial": trial + 1,
        "target": &*test.target_name,
        "vars": vars,
        "run": ctx.run_id,
        "ended": ended,
        "interpretation": resolved.interpretation,
    });
    // The authored fields, for the reports' interpretation panel.
    if let (Some(a), Some(m)) = (&test.authored, metadata.as_object_mut()) {
        m.insert("authored".into(), json!(a));
    }
    let trace = make_trace(&trace_id, &test.target, turns, metadata, error);
    let contracts: Vec<&CompiledContract> = resolved.contracts.iter().collect();
    let (judgments, final_answers, judge_calls) = if trace.error.is_none() {
        judge_trace(ctx.judge.as_ref(), &contracts, &trace, &ctx.cache, None).await?
    } else {
        Default::default()
    };
    calls.judge.network += judge_calls.network;
    calls.judge.cached += judge_calls.cached;
    judge_answers.extend(final_answers);
    let result = if resolved.contracts.is_empty() {
        error_result(
            &trace.id,
            level,
            &format!("test `{}` has no contract to grade against", test.id),
        )
    } else {
        grade_trace(&resolved.contracts, &trace, &ctx.policy, &judgments)
    };
    Ok(TrialOutput {
        trace: Some(trace),
        result,
        judge_answers,
        calls,
    })
}

fn user_turn(user: &str) -> Turn {
    Turn {
        input: vec![Message {
            role: Role::User,
            content: user.to_string(),
        }],
        ..Turn::default()
    }
}

/// A trace of `target`'s conversation: its observability level, and the
/// tools it was offered when it says ([`Target::offered_tools`]), so a
/// check on a tool it never had can be told from one that found nothing.
fn make_trace(
    id: &str,
    target: &Target,
    turns: Vec<Turn>,
    metadata: Value,
    error: Option<String>,
) -> Trace {
    Trace {
        id: id.to_string(),
        observability: target.observability(),
        turns,
        metadata,
        error,
        incomplete: None,
        ended_by: None,
        source: None,
        offered_tools: target.offered_tools().cloned(),
    }
}

/// The simulated user's next message, through the cache (each trial is
/// its own sample). `Ok(Err(why))` ends the trial in error.
#[allow(clippy::too_many_arguments)]
async fn next_simulated(
    ctx: &RunContext,
    resolved: &Resolved,
    test: &TestPlan,
    turns: &[Turn],
    turn: u32,
    max_turns: u32,
    trial: u32,
    calls: &mut CallCounts,
) -> Result<Result<String, String>, RunError> {
    let Some(client) = &ctx.simulated_user else {
        return Ok(Err(format!(
            "test `{}` has no scripted turns and the suite configures no `simulated_user` model to drive it",
            test.id
        )));
    };
    let authored = test.authored.as_deref().cloned().unwrap_or(AuthoredTest {
        goal: String::new(),
        instructions: String::new(),
        restrictions: String::new(),
        scenario: String::new(),
        min_turns: 1,
        max_turns,
    });
    let objective = resolved
        .objective
        .clone()
        .filter(|o| !o.trim().is_empty())
        .unwrap_or_else(|| authored.goal.clone());
    let so_far = make_trace("", &test.target, turns.to_vec(), Value::Null, None);
    let transcript = transcript_from_trace(&so_far);
    let request = simulated_user_request(
        &objective,
        resolved.adversarial,
        &authored.scenario,
        &authored.instructions,
        &transcript,
        turn,
        max_turns,
    );
    let key = digest_of(&json!({
        "request": cache_key(client.endpoint(), &request, SIMULATED_USER_PROMPT_VERSION),
        "trial": trial,
    }));
    if let Some(Value::String(m)) = ctx.cache.get(&key).await? {
        calls.simulated_user_cached += 1;
        return Ok(Ok(m));
    }
    calls.simulated_user_network += 1;
    match next_user_message(client, &request).await {
        Ok(m) => {
            ctx.cache
                .put(&key, CacheKind::SimulatedUser, Value::String(m.clone()))
                .await?;
            Ok(Ok(m))
        }
        Err(e) => Ok(Err(format!(
            "the simulated user failed at turn {turn}: {e}"
        ))),
    }
}

/// SPEC §3.7: after a turn, deterministic checks of prohibited clauses
/// always count; judged ones from `min_turns` on. Stops only on positive
/// evidence of a violated prohibition.
async fn stop_check(
    ctx: &RunContext,
    contracts: &Arc<Vec<CompiledContract>>,
    partial: &Trace,
    turn: u32,
    min_turns: u32,
    max_turns: u32,
    calls: &mut CallCounts,
) -> Result<(StopDecision, Vec<RawJudgeAnswer>), RunError> {
    let prohibited = |r: &TraceResult| -> Vec<ClauseResult> {
        r.contracts
            .iter()
            .flat_map(|c| c.clauses.iter())
            .filter(|c| c.kind == ClauseKind::Prohibited)
            .cloned()
            .collect()
    };
    let det = prohibited(&grade_trace(contracts, partial, &ctx.policy, &NoJudge));
    let mut judged = Vec::new();
    let mut raws = Vec::new();
    if turn >= min_turns && ctx.judge.is_some() {
        let refs: Vec<&CompiledContract> = contracts.iter().collect();
        let (judgments, answers, c) = judge_trace(
            ctx.judge.as_ref(),
            &refs,
            partial,
            &ctx.cache,
            Some(ClauseKind::Prohibited),
        )
        .await?;
        calls.judge.network += c.network;
        calls.judge.cached += c.cached;
        raws = answers
            .into_iter()
            .map(|mut a| {
                a.turn = Some(turn);
                a
            })
            .collect();
        judged = prohibited(&grade_trace(contracts, partial, &ctx.policy, &judgments));
    }
    let mut all = with_basis(Basis::Deterministic, &det);
    all.extend(with_basis(Basis::Judged, &judged));
    Ok((stop_decision(turn, min_turns, max_turns, &all), raws))
}

/// A result that grades nothing: status `error` with its reason.
pub(crate) fn error_result(trace_id: &str, level: ObservabilityLevel, why: &str) -> TraceResult {
    TraceResult {
        trace_id: trace_id.to_string(),
        source: None,
        observability: level,
        status: pactum_core::TestStatus::Error,
        // The cause (an OS error and its number) ends the chain: keep it.
        summary: format!("error: {}", pactum_core::text::one_line_ends(why, 300)),
        contracts: vec![],
        overall_score: None,
        error: Some(why.to_string()),
    }
}

#[cfg(test)]
mod call_count_tests {
    use super::CallCounts;

    #[test]
    fn failed_target_calls_are_not_counted_as_answered() {
        let mut c = CallCounts {
            target_network: 12,
            ..CallCounts::default()
        };
        assert_eq!(c.target_sent(), "12 sent");
        c.target_failed = 12;
        assert_eq!(c.target_sent(), "12 sent (0 answered, 12 failed)");
        c.target_failed = 3;
        assert_eq!(c.target_sent(), "12 sent (9 answered, 3 failed)");
    }
}
