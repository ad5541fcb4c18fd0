//! # pactum-llm
//!
//! Everything pactum says to a language model over the network:
//!
//! | what | module |
//! |---|---|
//! | OpenAI-compatible chat client: timeout, concurrency and rate limits, retries of transient failures | [`client`] |
//! | the limits of one endpoint: rate limiter, concurrency, the retry loop, shared with pactum-target | [`limit`] |
//! | cache keys of chat requests | [`cache`] |
//! | reading an answer that must be exactly one JSON object (judge, interpreter) | [`answer`] |
//! | fencing untrusted text in a prompt (judge, interpreter, simulated user) | [`fence`] |
//! | the judge: prompts, windows, strict answer parsing, quote verification, retries (SPEC §3.4) | [`judge`] |
//! | the transcript a judge reads, its windows, and where a quote occurs in a trace | [`transcript`] |
//! | the scripted test server's Rust handle (feature `test-support`) | `testing` |
//!
//! API keys come only from the environment, are sent only as
//! `Authorization: Bearer …`, and never appear in an error, a `Debug`
//! output or a cache key (SPEC §4).

pub mod answer;
pub mod cache;
pub mod client;
mod error;
pub mod fence;
pub mod judge;
pub mod limit;
pub mod transcript;

#[cfg(feature = "test-support")]
pub mod testing;

pub use cache::cache_key;
pub use client::{ChatClient, ChatMessage, ChatRequest, ChatResponse, Endpoint, RetryPolicy};
pub use error::LlmError;
pub use judge::{
    combine_windows, judge_clause, judge_plan, judge_window, parse_judge_answer, window_request,
    AnswerText, JudgePlan, JudgeRecord, JudgedClause, ParseError, RawAnswer, JUDGE_PROMPT_VERSION,
};
pub use limit::RateLimiter;
/// What the judge's answer grades to: [`JudgeRecord::outcome`].
pub use pactum_core::judge::JudgeAnswer;
