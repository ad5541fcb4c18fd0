//! # pactum-eval
//!
//! Deterministic predicates over traces, the refusal detector, and grading
//! of traces against contracts. Pure and synchronous: no I/O.
//!
//! | SPEC | where |
//! |---|---|
//! | §3.1 composition (`all`/`any`/`not`, no short-circuit) | [`CompiledPredicate::evaluate`] over `pactum_core::outcome` |
//! | §3.2 observability (`U` for an unobserved channel) | `scope` (turn scopes, the gap rule), `calls` (counts) |
//! | §3.3 verdicts, conditionals | [`CompiledContract::grade`] |
//! | §3.4 judged clauses (the answer and its threshold: `pactum_core::judge`) | [`Judgments`] |
//! | §3.5 scores and status, no-response traces | [`grade_trace`] |
//! | §2 the `refusal` predicate: `full` vs `any` | [`refusal::RefusalJudgement::outcome`] (docs/refusal.md) |
//! | expected statuses (`docs/contracts.md`) | [`CompiledExpectations`] |
//!
//! The user-facing semantics of every predicate are in
//! `docs/predicates.md`.
//!
//! ```
//! use pactum_core::{Predicate, Trace};
//! let trace: Trace = serde_json::from_str(r#"{"id": "t", "observability": "response_only",
//!     "turns": [{"response": "Refund issued."}]}"#).unwrap();
//! let p: Predicate = serde_json::from_str(r#"{"tool_called": {"name": "refund"}}"#).unwrap();
//! let e = pactum_eval::evaluate_predicate(&p, &trace).unwrap();
//! assert_eq!(e.outcome, pactum_core::Outcome::Undetermined);
//! assert!(e.rationale.starts_with("level response_only does not observe tool_calls"));
//! ```

mod calls;
mod error;
mod expect;
mod grade;
mod name_warnings;
mod names;
mod predicate;
pub mod refusal;
mod response;
mod schema;
mod scope;
mod text;
mod value;

pub use calls::{CompiledCallMatch, CompiledEffectMatch};
pub use error::EvalError;
pub use expect::CompiledExpectations;
pub use grade::{grade_trace, CompiledContract, Judgments, NoJudge, NO_RESPONSE};
pub use name_warnings::{checked_names, NameWarning, NameWarnings};
pub use names::{
    side_effect_kind_near_miss, side_effect_kind_typo, tool_name_near_miss, tool_name_typo,
};
pub use predicate::{evaluate_predicate, CompiledPredicate};
pub use schema::compile_json_schema;
pub use scope::MAX_EVIDENCE;
pub use text::QUOTE_CHARS;
pub use value::{json_eq, CompiledValueMatch};
