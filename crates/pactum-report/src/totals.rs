//! Counts per status: the totals line and the CLI's exit code.

use pactum_core::{TestStatus, TraceResult};
use serde::{Deserialize, Serialize};

use crate::{InputError, MissingTrial, ReportError, Reporter, RunEnd, RunInfo};

/// How many traces ended in each status, and how many input records could
/// not be read. A pure tally: it is also a [`Reporter`], so the CLI can put
/// it beside the others and derive the exit code from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Traces that passed.
    pub pass: u64,
    /// Traces that failed (a clause violated).
    pub fail: u64,
    /// Traces left undetermined (WARN).
    pub undetermined: u64,
    /// Traces in error (unusable contract, no response, infrastructure).
    pub error: u64,
    /// Input records that could not be read.
    pub input_errors: u64,
    /// Trials a stored run planned that were never stored.
    #[serde(default)]
    pub missing_trials: u64,
}

impl Totals {
    /// Counts one trace.
    pub fn add(&mut self, status: TestStatus) {
        *self.slot(status) += 1;
    }

    /// Counts one unreadable input record.
    pub fn add_input_error(&mut self) {
        self.input_errors += 1;
    }

    /// Traces that ended in `status`.
    pub fn count(&self, status: TestStatus) -> u64 {
        match status {
            TestStatus::Pass => self.pass,
            TestStatus::Fail => self.fail,
            TestStatus::Undetermined => self.undetermined,
            TestStatus::Error => self.error,
        }
    }

    fn slot(&mut self, status: TestStatus) -> &mut u64 {
        match status {
            TestStatus::Pass => &mut self.pass,
            TestStatus::Fail => &mut self.fail,
            TestStatus::Undetermined => &mut self.undetermined,
            TestStatus::Error => &mut self.error,
        }
    }

    /// Traces graded, whatever their status.
    pub fn traces(&self) -> u64 {
        self.pass + self.fail + self.undetermined + self.error
    }

    /// Counts one trial that was planned but never stored.
    pub fn add_missing_trial(&mut self) {
        self.missing_trials += 1;
    }

    /// Whether the run covers only part of what it should: some input
    /// could not be read, or some planned trial was never stored (the exit
    /// code says so).
    pub fn is_partial(&self) -> bool {
        self.input_errors > 0 || self.missing_trials > 0
    }

    /// The totals line, e.g. `1746 traces: 120 fail, 3 error, 0
    /// undetermined, 1623 pass; 1 input error — the run is partial`, or
    /// for a stored run with missing trials `…; 3 of 10 trials stored, 7
    /// never — the run is partial`.
    pub fn summary_line(&self) -> String {
        let traces = self.traces();
        let mut s = format!(
            "{traces} {}: {} fail, {} error, {} undetermined, {} pass",
            plural(traces, "trace", "traces"),
            self.fail,
            self.error,
            self.undetermined,
            self.pass
        );
        if self.missing_trials > 0 {
            s.push_str(&format!(
                "; {traces} of {} trials stored, {} never — the run is partial",
                traces + self.missing_trials,
                self.missing_trials
            ));
        }
        if self.input_errors > 0 {
            s.push_str(&format!(
                "; {} {} — {}",
                self.input_errors,
                plural(self.input_errors, "input error", "input errors"),
                if traces == 0 {
                    "nothing was graded"
                } else {
                    "the run is partial"
                }
            ));
        }
        s
    }
}

pub(crate) fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

impl Reporter for Totals {
    fn begin(&mut self, _info: &RunInfo) -> Result<(), ReportError> {
        Ok(())
    }
    fn result(
        &mut self,
        r: &TraceResult,
        _expected: Option<TestStatus>,
    ) -> Result<(), ReportError> {
        self.add(r.status);
        Ok(())
    }
    fn input_error(&mut self, _e: &InputError) -> Result<(), ReportError> {
        self.add_input_error();
        Ok(())
    }
    fn missing_trial(&mut self, _m: &MissingTrial) -> Result<(), ReportError> {
        self.add_missing_trial();
        Ok(())
    }
    fn finish(&mut self, _end: &RunEnd) -> Result<(), ReportError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_lands_in_its_own_count() {
        for s in TestStatus::ALL {
            let mut t = Totals::default();
            t.add(s);
            for other in TestStatus::ALL {
                assert_eq!(
                    t.count(other),
                    u64::from(other == s),
                    "{s:?} counted as {other:?}"
                );
            }
            assert_eq!(t.traces(), 1);
            assert!(!t.is_partial());
        }
    }

    #[test]
    fn summary_line_wording() {
        let mut t = Totals {
            pass: 1623,
            fail: 120,
            undetermined: 0,
            error: 3,
            input_errors: 1,
            missing_trials: 0,
        };
        assert_eq!(
            t.summary_line(),
            "1746 traces: 120 fail, 3 error, 0 undetermined, 1623 pass; 1 input error — the run is partial"
        );
        t.input_errors = 0;
        assert!(!t.summary_line().contains("partial"));
        let one = Totals {
            pass: 1,
            ..Totals::default()
        };
        assert!(one.summary_line().starts_with("1 trace: "));
        let none = Totals {
            input_errors: 2,
            ..Totals::default()
        };
        assert_eq!(
            none.summary_line(),
            "0 traces: 0 fail, 0 error, 0 undetermined, 0 pass; 2 input errors — nothing was graded"
        );
        let gaps = Totals {
            pass: 3,
            missing_trials: 7,
            ..Totals::default()
        };
        assert!(gaps.is_partial());
        assert_eq!(
            gaps.summary_line(),
            "3 traces: 0 fail, 0 error, 0 undetermined, 3 pass; 3 of 10 trials stored, 7 never — the run is partial"
        );
    }
}
