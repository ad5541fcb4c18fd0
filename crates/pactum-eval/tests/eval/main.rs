//! pactum-eval's integration tests (one binary): predicate semantics,
//! grading, expectations, property tests and the real AgentDojo data.

#![allow(clippy::unwrap_used)]

mod common;
mod expect;
mod grading;
mod predicates;
mod props;
mod real_data;
