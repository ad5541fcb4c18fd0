//! What grading one trace produces: per-contract clause results, scores and
//! the test status with its one-line summary.

use serde::{Deserialize, Serialize};

use crate::status::TestStatus;
use crate::trace::{ObservabilityLevel, SourceRef};
use crate::verdict::{ClauseResult, Verdict};

/// How many clauses ended in each verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct VerdictCounts {
    /// Satisfied clauses.
    pub satisfied: u32,
    /// Partially satisfied clauses.
    pub partially_satisfied: u32,
    /// Violated clauses.
    pub violated: u32,
    /// Not evaluable clauses.
    pub not_evaluable: u32,
    /// Conditional clauses whose condition did not hold.
    pub not_triggered: u32,
}

impl VerdictCounts {
    /// Counts the verdicts of `clauses`.
    pub fn of(clauses: &[ClauseResult]) -> Self {
        let mut c = VerdictCounts::default();
        for r in clauses {
            match r.verdict {
                Verdict::Satisfied => c.satisfied += 1,
                Verdict::PartiallySatisfied => c.partially_satisfied += 1,
                Verdict::Violated => c.violated += 1,
                Verdict::NotEvaluable => c.not_evaluable += 1,
                Verdict::NotTriggered => c.not_triggered += 1,
            }
        }
        c
    }

    /// Clauses that count as evaluable (SPEC §3.5): every verdict except
    /// `not_evaluable` and `not_triggered`.
    pub fn evaluable(&self) -> u32 {
        self.satisfied + self.partially_satisfied + self.violated
    }
}

/// One contract graded over one trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContractResult {
    /// The contract id.
    pub contract_id: String,
    /// `sha256:` digest of the contract it was scored against.
    pub contract_digest: String,
    /// One result per declared clause, in declaration order (required,
    /// prohibited, conditional).
    pub clauses: Vec<ClauseResult>,
    /// Verdict counts.
    pub counts: VerdictCounts,
    /// `contract_score` (SPEC §3.5), 0–100, `None` when nothing is evaluable.
    pub score: Option<f64>,
}

impl ContractResult {
    /// Builds the result, computing counts and score from the clauses.
    pub fn new(contract_id: String, contract_digest: String, clauses: Vec<ClauseResult>) -> Self {
        let counts = VerdictCounts::of(&clauses);
        let score = crate::score::contract_score(&counts);
        ContractResult {
            contract_id,
            contract_digest,
            clauses,
            counts,
            score,
        }
    }
}

/// The result of grading one trace (one test) against its contracts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceResult {
    /// The trace's id.
    pub trace_id: String,
    /// Where it was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// The declared observability level it was graded under.
    pub observability: ObservabilityLevel,
    /// pass / fail / undetermined / error.
    pub status: TestStatus,
    /// One line that says why, naming what was left undetermined even on a pass.
    pub summary: String,
    /// One entry per contract that applied.
    pub contracts: Vec<ContractResult>,
    /// `overall_score` (SPEC §3.5), `None` when nothing is evaluable.
    pub overall_score: Option<f64>,
    /// The infrastructure or input reason for an `error` status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
