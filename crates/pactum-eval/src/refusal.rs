//! The deterministic refusal detector (placeholder: being built).

/// What the detector concluded about one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalClass {
    /// The response refuses (fully or partially).
    Refusal,
    /// The response complies.
    Compliance,
    /// The detector cannot tell; the predicate answers undetermined.
    Unsure,
}

/// The detector's answer with the cue that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusalJudgement {
    /// The class.
    pub class: RefusalClass,
    /// The phrase that decided it, verbatim from the response, when any.
    pub cue: Option<String>,
    /// One sentence saying why.
    pub rationale: String,
}

/// Classifies one response text.
pub fn classify(response: &str) -> RefusalJudgement {
    let _ = response;
    RefusalJudgement {
        class: RefusalClass::Unsure,
        cue: None,
        rationale: "refusal detector not built yet".into(),
    }
}
