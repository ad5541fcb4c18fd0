//! Agreement between pactum's statuses and ground-truth labels: confusion
//! matrix, accuracy and Cohen's kappa (docs/reports.md). Pure arithmetic.

use serde::{Deserialize, Serialize};

use crate::contract::{FieldMatch, ValueMatch};
use crate::status::TestStatus;

/// The expectations file format version.
pub const EXPECTATIONS_VERSION: u32 = 1;

/// How to read each trace's expected status from one of its fields
/// (an expectations file, documented in `docs/contracts.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expectations {
    /// [`EXPECTATIONS_VERSION`].
    pub version: u32,
    /// The rule.
    pub expect: ExpectRule,
}

/// Reads the value at `pointer` and maps it to a status with the first
/// matching case. Traces where `when` does not hold, or no case matches,
/// are unlabelled (left out of the agreement table and counted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectRule {
    /// JSON pointer into the trace's metadata (for an OpenAI-format record,
    /// the whole record minus its messages: AgentDojo's label is at
    /// `/metadata/security`).
    pub pointer: String,
    /// Only traces where this holds are labelled (e.g. attacked traces only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<FieldMatch>,
    /// Value conditions and the status each implies; first match wins.
    pub cases: Vec<ExpectCase>,
}

/// One case of an [`ExpectRule`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectCase {
    /// Conditions on the value (a bare scalar means `equals`).
    #[serde(flatten)]
    pub matcher: ValueMatch,
    /// The expected status when the conditions hold.
    pub status: TestStatus,
}

/// A confusion matrix over test statuses: `cells[expected][actual]`, indexed
/// in [`TestStatus::ALL`] order (fail, error, undetermined, pass).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Confusion {
    /// `cells[e][a]`: traces expected `TestStatus::ALL[e]` that got `TestStatus::ALL[a]`.
    pub cells: [[u64; 4]; 4],
}

fn index(s: TestStatus) -> usize {
    TestStatus::ALL.iter().position(|x| *x == s).unwrap_or(0)
}

impl Confusion {
    /// Records one labelled trace.
    pub fn add(&mut self, expected: TestStatus, actual: TestStatus) {
        self.cells[index(expected)][index(actual)] += 1;
    }

    /// Count of one cell.
    pub fn get(&self, expected: TestStatus, actual: TestStatus) -> u64 {
        self.cells[index(expected)][index(actual)]
    }

    /// Number of labelled traces.
    pub fn total(&self) -> u64 {
        self.cells.iter().flatten().sum()
    }

    /// Traces whose status equals the label.
    pub fn agreeing(&self) -> u64 {
        (0..4).map(|i| self.cells[i][i]).sum()
    }

    /// Agreeing / total; `None` when nothing is labelled.
    pub fn accuracy(&self) -> Option<f64> {
        let n = self.total();
        (n > 0).then(|| self.agreeing() as f64 / n as f64)
    }

    /// Cohen's kappa over the four statuses: `(p_o − p_e) / (1 − p_e)`.
    /// `None` when nothing is labelled, or when chance agreement is 1 (both
    /// raters used a single identical category), where kappa is undefined.
    pub fn kappa(&self) -> Option<f64> {
        let n = self.total() as f64;
        if n == 0.0 {
            return None;
        }
        let po = self.agreeing() as f64 / n;
        let pe: f64 = (0..4)
            .map(|k| {
                let row: u64 = self.cells[k].iter().sum();
                let col: u64 = (0..4).map(|r| self.cells[r][k]).sum();
                (row as f64 / n) * (col as f64 / n)
            })
            .sum();
        if (1.0 - pe).abs() < f64::EPSILON {
            return None;
        }
        Some((po - pe) / (1.0 - pe))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TestStatus::*;

    #[test]
    fn kappa_textbook_example() {
        // 50 items: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no → kappa 0.4.
        let mut c = Confusion::default();
        for _ in 0..20 {
            c.add(Fail, Fail);
        }
        for _ in 0..5 {
            c.add(Fail, Pass);
        }
        for _ in 0..10 {
            c.add(Pass, Fail);
        }
        for _ in 0..15 {
            c.add(Pass, Pass);
        }
        assert_eq!(c.total(), 50);
        assert!((c.accuracy().unwrap() - 0.7).abs() < 1e-12);
        assert!((c.kappa().unwrap() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn degenerate_cases() {
        let c = Confusion::default();
        assert_eq!(c.accuracy(), None);
        assert_eq!(c.kappa(), None);
        let mut c = Confusion::default();
        c.add(Pass, Pass);
        assert_eq!(c.kappa(), None);
        c.add(Fail, Undetermined);
        assert_eq!(c.get(Fail, Undetermined), 1);
        assert!(c.kappa().is_some());
    }
}
