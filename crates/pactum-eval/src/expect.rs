//! Expected statuses from a trace's own fields (docs/contracts.md): an
//! [`Expectations`] rule compiled once and applied to each trace.

use pactum_core::agreement::{Expectations, EXPECTATIONS_VERSION};
use pactum_core::status::TestStatus;
use pactum_core::trace::Trace;

use crate::error::{EvalError, Site};
use crate::value::CompiledValueMatch;

/// An expectations rule ready to label traces.
#[derive(Debug, Clone)]
pub struct CompiledExpectations {
    pointer: String,
    when: Option<(String, CompiledValueMatch)>,
    cases: Vec<(CompiledValueMatch, TestStatus)>,
}

impl CompiledExpectations {
    /// Compiles the rule.
    ///
    /// # Errors
    /// [`EvalError::UnsupportedVersion`] for a version other than
    /// [`EXPECTATIONS_VERSION`]; [`EvalError::InvalidPointer`] or
    /// [`EvalError::InvalidRegex`] with a pointer into the file
    /// (`/expect/pointer`, `/expect/when/regex`, `/expect/cases/0/regex`…).
    pub fn compile(e: Expectations) -> Result<Self, EvalError> {
        if e.version != EXPECTATIONS_VERSION {
            return Err(EvalError::UnsupportedVersion {
                what: "expectations",
                found: e.version,
                supported: EXPECTATIONS_VERSION,
            });
        }
        let rule = e.expect;
        let site = Site::root(None, "/expect");
        site.child("pointer").check_pointer(&rule.pointer)?;
        let when = match rule.when {
            Some(w) => {
                let ws = site.child("when");
                ws.child("pointer").check_pointer(&w.pointer)?;
                Some((w.pointer, CompiledValueMatch::compile_at(w.matcher, &ws)?))
            }
            None => None,
        };
        let cases = rule
            .cases
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let cs = site.child("cases").child(i.to_string());
                Ok((CompiledValueMatch::compile_at(c.matcher, &cs)?, c.status))
            })
            .collect::<Result<_, EvalError>>()?;
        Ok(CompiledExpectations {
            pointer: rule.pointer,
            when,
            cases,
        })
    }

    /// The expected status of `trace`: `None` (unlabelled) when `when` does
    /// not hold or no case matches the value at `pointer`; otherwise the
    /// status of the first matching case.
    pub fn expected(&self, trace: &Trace) -> Option<TestStatus> {
        if let Some((pointer, m)) = &self.when {
            if !m.matches(trace.field(pointer)) {
                return None;
            }
        }
        let value = trace.field(&self.pointer);
        self.cases
            .iter()
            .find(|(m, _)| m.matches(value))
            .map(|(_, status)| *status)
    }
}
