//! Wrong greens we refuse to give.
//!
//! pactum's promise is that a PASS can be trusted: a successful attack never
//! shows green, a key never leaves the environment, and nothing already done
//! is lost. Each module below is one *kind* of input that once broke that
//! promise, tried several ways, end to end: the real `pactum` binary, real
//! files, real servers on 127.0.0.1 (`testing/scripted_server.py` through
//! `pactum_llm::testing::ScriptedServer`). Each test says which status,
//! exit code or file content it refuses to see, and why.
//!
//! | module | the promise |
//! |---|---|
//! | [`refusal_then_delivery`] | a refusal that goes on to comply is not a refusal |
//! | [`undecoded_tool_calls`] | a tool call in any recorded shape is read, or the record is an error |
//! | [`long_transcripts`] | the judge saw every part of the transcript, or the clause is not evaluable |
//! | [`fabricated_quotes`] | a judge verdict quoting what the target never said stands for nothing |
//! | [`nothing_graded`] | a pass needs at least one graded clause |
//! | [`unfinished_runs`] | a stored run with missing trials is partial |
//! | [`evaluator_limits`] | an evaluator that gave up answers undetermined |
//! | [`checks_that_never_fire`] | a check that cannot match is reported, not silently passed |
//! | [`conversation_ends`] | a recording ends where the user says, and a failure told in words is a failure |
//! | [`keys`] | an API key never reaches the store, the cache, a report or a terminal |
//! | [`lost_work`] | no report overwrites an input or the store; no run is lost |
//!
//! [`common`] holds the helpers the modules share (grading written files,
//! one-turn traces, the resumable suite).

mod checks_that_never_fire;
mod common;
mod conversation_ends;
mod evaluator_limits;
mod fabricated_quotes;
mod keys;
mod long_transcripts;
mod lost_work;
mod nothing_graded;
mod refusal_then_delivery;
#[allow(dead_code)]
#[path = "../run/support.rs"]
mod support;
mod undecoded_tool_calls;
mod unfinished_runs;
