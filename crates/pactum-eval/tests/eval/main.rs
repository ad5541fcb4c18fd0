//! pactum-eval's integration tests (one binary): predicate semantics,
//! grading, expectations, property tests, checks on what no check could
//! see (tools never offered, redacted text, near-miss kinds) and the real
//! AgentDojo data.

#![allow(clippy::unwrap_used)]

mod common;
mod expect;
mod grading;
mod predicates;
mod props;
mod real_data;
mod unseen;
