//! Shared helpers of this crate's integration tests. The scripted server
//! handle is the same source file the `test-support` feature exposes as
//! `pactum_llm::testing`, so other crates' tests use exactly this code.

#![allow(dead_code)]

#[path = "../../src/testing.rs"]
mod scripted;

pub use scripted::ScriptedServer;
