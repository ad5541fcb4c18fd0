//! A result's report fragments, rendered ahead of the writing thread.
//!
//! A JSON result line and a JUnit test case are pure functions of one
//! result: a pipeline that grades on several threads renders them where
//! the result is made ([`Rendered::of`]), and the thread that writes the
//! reports in input order only appends bytes
//! ([`Reporter::result_rendered`]). The bytes are those
//! [`Reporter::result`] would write, so a report is the same whichever
//! path wrote it.
//!
//! [`Reporter::result_rendered`]: crate::Reporter::result_rendered
//! [`Reporter::result`]: crate::Reporter::result

use pactum_core::{TestStatus, TraceResult};

/// Which fragments are worth rendering ahead: those of the reports being
/// written, as [`crate::Fanout::prerender`] says. The default renders
/// nothing (every reporter then renders its own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Prerender {
    /// The JSON report's result line.
    pub json: bool,
    /// The JUnit report's test case.
    pub junit: bool,
}

impl Prerender {
    /// Whether anything is rendered ahead.
    pub fn any(self) -> bool {
        self.json || self.junit
    }
}

/// One result's fragments: the JSON element of `results` (compact, no
/// separator or indent) and the JUnit `<testcase>` element. A fragment
/// not rendered (not asked for, or its rendering failed) is `None`: the
/// reporter then renders it itself, and fails as it would have.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    pub(crate) json: Option<Vec<u8>>,
    pub(crate) junit: Option<String>,
}

impl Rendered {
    /// The fragments `what` asks for, of `r` with its expected status.
    pub fn of(what: Prerender, r: &TraceResult, expected: Option<TestStatus>) -> Rendered {
        Rendered {
            json: what.json.then_some(()).and_then(|()| {
                let mut out = Vec::with_capacity(1024);
                crate::json::result_json(&mut out, r, expected)
                    .ok()
                    .map(|()| out)
            }),
            junit: what.junit.then(|| {
                let mut out = String::with_capacity(256);
                crate::junit::testcase(r, &mut out);
                out
            }),
        }
    }

    /// Nothing rendered ahead.
    pub fn none() -> Rendered {
        Rendered::default()
    }
}
