//! # pactum-eval
//!
//! Deterministic predicates over traces, the refusal detector, and grading of traces against contracts.

pub mod refusal;
