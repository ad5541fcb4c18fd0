//! One trial: drive the conversation against the target (through the
//! cache), judge, grade. Never panics and never turns a failure into a
//! pass: a target that still fails after its retries ends the trial
//! `error` (infrastructure).

use std::sync::Arc;

use pactum_core::policy::Policy;
use pactum_core::result::TraceResult;
use pactum_core::trace::{Message, ObservabilityLevel, Role, Trace, Turn};
use pactum_eval::{grade_trace, CompiledContract};
use pactum_store::CacheKind;
use pactum_target::{Conversation, Reply, Target};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::cache::{target_key, Cache};
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
        }
    }
}

/// What one test needs to run a trial.
pub(crate) struct TestPlan {
    pub id: String,
    pub target_name: String,
    pub target: Arc<Target>,
    pub turns: Vec<String>,
    pub vars: Map<String, Value>,
    /// The test's contract (zero or one), compiled once per run.
    pub contracts: Arc<Vec<CompiledContract>>,
}

/// Network and cache use of one trial.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallCounts {
    /// Target turns sent over the network.
    pub target_network: u32,
    /// Target turns answered from the cache.
    pub target_cached: u32,
    /// Judge calls.
    pub judge: JudgeCalls,
}

/// Everything a finished trial produced.
pub(crate) struct TrialOutput {
    pub trace: Trace,
    pub result: TraceResult,
    pub judge_answers: Vec<RawJudgeAnswer>,
    pub calls: CallCounts,
}

/// Shared, read-only context of a run.
pub(crate) struct RunContext {
    pub run_id: String,
    pub cache: Cache,
    pub judge: Option<JudgeSetup>,
    pub policy: Policy,
}

pub(crate) async fn run_trial(
    ctx: &RunContext,
    test: &TestPlan,
    trial: u32,
) -> Result<TrialOutput, RunError> {
    let mut calls = CallCounts::default();
    let level: ObservabilityLevel = test.target.observability();
    let identity = test.target.identity();
    let vars = Value::Object(test.vars.clone());
    let conversation_id = format!("{}/{}/{}", ctx.run_id, test.id, trial + 1);
    let mut messages: Vec<pactum_target::Message> = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut error = None;
    let mut target_conversation_id = None;
    for (i, user) in test.turns.iter().enumerate() {
        let turn_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        messages.push(pactum_target::Message {
            role: pactum_target::Role::User,
            content: user.clone(),
        });
        let sent = serde_json::to_value(&messages).unwrap_or(Value::Null);
        let key = target_key(&identity, &sent, &vars, turn_no, trial);
        let cached: Option<CachedReply> = ctx
            .cache
            .get(&key)
            .await?
            .and_then(|v| serde_json::from_value(v).ok());
        let reply = match cached {
            Some(r) => {
                calls.target_cached += 1;
                r
            }
            None => {
                let conv = Conversation {
                    id: conversation_id.clone(),
                    messages: messages.clone(),
                    target_conversation_id: target_conversation_id.clone(),
                    turn: turn_no,
                    vars: test.vars.clone(),
                };
                calls.target_network += 1;
                match test.target.reply(&conv).await {
                    Ok(r) => {
                        let c = CachedReply::from(&r);
                        if let Ok(v) = serde_json::to_value(&c) {
                            ctx.cache.put(&key, CacheKind::Target, v).await?;
                        }
                        c
                    }
                    Err(e) => {
                        error = Some(format!(
                            "target `{}` failed at turn {turn_no}: {e}",
                            test.target_name
                        ));
                        turns.push(Turn {
                            input: vec![Message {
                                role: Role::User,
                                content: user.clone(),
                            }],
                            ..Turn::default()
                        });
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
                content: user.clone(),
            }],
            response: reply.text,
            tool_calls: reply.tool_calls,
            side_effects: reply.side_effects,
            latency_ms: Some(reply.latency_ms),
            usage: reply.usage,
        });
        if reply.ended {
            break;
        }
    }
    test.target.close(&conversation_id).await;
    let trace = Trace {
        id: format!("{}#{}", test.id, trial + 1),
        observability: level,
        turns,
        metadata: json!({
            "test": test.id,
            "trial": trial + 1,
            "target": test.target_name,
            "vars": vars,
            "run": ctx.run_id,
        }),
        error,
        incomplete: None,
        source: None,
    };
    let contracts: Vec<&CompiledContract> = test.contracts.iter().collect();
    let (judgments, judge_answers, judge_calls) = if trace.error.is_none() {
        judge_trace(
            ctx.judge.as_ref(),
            &contracts,
            &trace,
            ctx.policy.confidence_threshold,
            &ctx.cache,
        )
        .await?
    } else {
        Default::default()
    };
    calls.judge = judge_calls;
    let result = if test.contracts.is_empty() {
        no_contract_result(&trace, &test.id)
    } else {
        grade_trace(&test.contracts, &trace, &ctx.policy, &judgments)
    };
    Ok(TrialOutput {
        trace,
        result,
        judge_answers,
        calls,
    })
}

fn no_contract_result(trace: &Trace, test: &str) -> TraceResult {
    TraceResult {
        trace_id: trace.id.clone(),
        source: None,
        observability: trace.observability,
        status: pactum_core::TestStatus::Error,
        summary: format!("error: test `{test}` has no contract to grade against"),
        contracts: vec![],
        overall_score: None,
        error: Some(format!("test `{test}` has no contract")),
    }
}
