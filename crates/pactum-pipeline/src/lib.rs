//! # pactum-pipeline
//!
//! The pipelines behind pactum's commands. Each is one library function
//! that takes a validated request and a [`Sink`], and returns an outcome
//! or a typed [`PipelineError`]:
//!
//! * [`grade`]: recorded traces against contracts;
//! * [`run`]: a suite against live targets (tests × trials, stored);
//! * [`openprose`]: completed OpenProse runs, each contract graded
//!   against the clauses it declared;
//! * [`stored`]: a stored run's report again (`show`), or graded again
//!   (`rescore`);
//! * [`strength`]: planted probes, trials and the strength artifacts;
//!   `aggregate` and `compare` over those artifacts.
//!
//! [`inputs`] holds the input checks they share (paths an output may not
//! replace, trace paths that cannot be read).
//!
//! A pipeline never prints: what it has to say goes to the sink (report
//! events, diagnostics, messages, progress), and the front end — the
//! CLI, an HTML report, the Python package — decides how it looks. The
//! events follow the cargo-nextest design: results stream to the sink as
//! they are reached and are dropped, so memory follows concurrency, not
//! the number of tests.

pub mod common;
mod error;
pub mod grade;
pub mod inputs;
mod keys;
pub mod openprose;
pub mod run;
mod sink;
pub mod stored;
pub mod strength;

pub use error::PipelineError;
pub use keys::redact_message;
pub use sink::{Message, MessageLevel, Progress, Sink};
