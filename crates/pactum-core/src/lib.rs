//! # pactum-core
//!
//! The pure core of pactum: no I/O, no async, serde only. Each rule of
//! SPEC.md lives in exactly one module here:
//!
//! | SPEC | module |
//! |---|---|
//! | §2 trace, channel, observability level | [`trace`] |
//! | §2 tool calls and results as recorded: every shape, decoded once | [`chat`] |
//! | §2 contract, clause, predicate language | [`contract`] |
//! | §2 negation lint, vacuous checks | [`lint`] |
//! | §3.1 Kleene outcomes, `undetermined_operands` | [`outcome`] |
//! | §3.3 outcome → clause verdict, and back | [`verdict`] |
//! | §3.4 a judge's answer, the confidence threshold | [`judge`] |
//! | §3.4 and the text predicates: text the target only repeated from the user | [`echo`] |
//! | §3.5 scores | [`score`] |
//! | §3.5 test status and summary | [`status`] |
//! | §3.4/§3.5/§3.8 thresholds | [`policy`] |
//! | §3.8 trial states, reduction, strength vector, verdict ladder, dominance, aggregation | [`strength`] |
//! | §4 untrusted text | [`text`] |
//! | §4 secrets: found in any encoding and redacted, before text is bounded | [`secret`] |
//! | §4 untrusted JSON: a repeated key is refused; JSON pointer tokens, escaped and unescaped | [`json`] |
//! | digests (SHA-256 over canonical JSON) | [`digest`] |
//! | agreement with ground-truth labels | [`agreement`] |

pub mod agreement;
pub mod chat;
pub mod contract;
pub mod digest;
pub mod echo;
pub mod json;
pub mod judge;
pub mod lint;
pub mod outcome;
pub mod policy;
pub mod result;
pub mod score;
pub mod secret;
pub mod status;
pub mod strength;
pub mod text;
pub mod trace;
pub mod verdict;

pub use contract::{Clause, ClauseKind, Contract, Predicate, Severity};
pub use judge::JudgeAnswer;
pub use outcome::{DiscountedEcho, Evaluation, Evidence, Outcome, UndeterminedOperand};
pub use policy::Policy;
pub use result::{ContractResult, TraceResult, VerdictCounts};
pub use status::TestStatus;
pub use trace::{Channel, ObservabilityLevel, Trace, Turn};
pub use verdict::{ClauseResult, NotEvaluableReason, Verdict};
