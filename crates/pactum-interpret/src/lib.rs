//! # pactum-interpret
//!
//! Authored tests become contracts, and multi-turn conversations know when
//! to stop:
//!
//! | SPEC | what | where |
//! |---|---|---|
//! | §2, §3.6 | authored fields, their digest and the interpretation cache key | [`authored_digest`], [`interpretation_key`] |
//! | §3.6 | the built-in deterministic interpreter (no model) | [`interpret_builtin`] |
//! | §3.6 | the model interpreter: prompt, strict parsing, bounded retries | [`interpreter_request`], [`parse_interpretation`], [`interpret_with_model`] |
//! | §3.6 | usability (a clause, the negation lint, the confidence threshold); explicit contracts | [`check_usable`], [`from_explicit`] |
//! | §3.7 | the simulated user | [`simulated_user_request`], [`next_user_message`] |
//! | §3.7 | the stopping rule (pure) | [`stop_decision`] |
//!
//! Only the model interpreter and the simulated user touch the network
//! (through `pactum-llm`); everything else is pure and deterministic. How
//! it reads to a user is in `docs/interpretation.md`.

mod authored;
mod builtin;
mod english;
mod error;
mod interpretation;
mod model;
mod simulated_user;
mod stop;

pub use authored::{
    authored_digest, interpretation_key, normalize_whitespace, AuthoredField, AuthoredFields,
};
pub use builtin::{
    complied_instead_of_refusing, interpret_builtin, ADVICE, CONFIDENCE_HARM_STATEMENT,
    CONFIDENCE_STATED,
};
pub use error::InterpretError;
pub use interpretation::{
    check_usable, from_explicit, interpreted_contract_id, Exchange, Interpretation,
    InterpreterSource, Provenance, Usability, BUILTIN_INTERPRETER_VERSION, BUILTIN_MODEL,
};
pub use model::{
    interpret_with_model, interpreter_request, interpreter_response_format, parse_interpretation,
    CLAUSE_TEXT_MAX_CHARS, INTERPRETER_PROMPT_VERSION, MODEL_TEXT_MAX_CHARS,
};
pub use simulated_user::{
    next_user_message, parse_user_message, simulated_user_request, transcript_from_trace, Role,
    SIMULATED_USER_PROMPT_VERSION, TRANSCRIPT_MAX_CHARS, TRANSCRIPT_MESSAGE_MAX_CHARS,
    USER_MESSAGE_MAX_CHARS,
};
pub use stop::{stop_decision, with_basis, Basis, ProhibitedResult, StopDecision};
