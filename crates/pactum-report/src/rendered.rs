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
//! When the reports redact a run's secrets, the result is redacted there
//! too ([`Ahead::render`]), with the secrets known at that moment; the
//! writing thread uses that copy only if it still knows exactly those
//! secrets, and redacts the result again itself otherwise.
//!
//! [`Reporter::result_rendered`]: crate::Reporter::result_rendered
//! [`Reporter::result`]: crate::Reporter::result

use pactum_core::secret::Redactor;
use pactum_core::{TestStatus, TraceResult};

use crate::redact::{redacted_copy, SharedRedactor};

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
/// reporter then renders it itself, and fails as it would have. When
/// the result was redacted ahead, the fragments are of the redacted copy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub(crate) json: Option<Vec<u8>>,
    pub(crate) junit: Option<String>,
    pub(crate) redacted: Option<Box<RedactedAhead>>,
}

/// A result redacted ahead: the redactor it was redacted with (the
/// reports' own, as it was then) and the redacted copy.
#[derive(Debug, Clone)]
pub(crate) struct RedactedAhead {
    pub(crate) under: Redactor,
    pub(crate) result: TraceResult,
}

impl PartialEq for RedactedAhead {
    fn eq(&self, other: &Self) -> bool {
        self.under.is_same(&other.under) && self.result == other.result
    }
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
            redacted: None,
        }
    }

    /// Nothing rendered ahead.
    pub fn none() -> Rendered {
        Rendered::default()
    }
}

/// What a pipeline does ahead, on the thread that grades a result
/// ([`crate::Fanout::ahead`]): renders the fragments [`Prerender`] asks
/// for and, while the reports redact secrets (SPEC §4), redacts the
/// result first with the secrets they hold at that moment. The default
/// does neither.
#[derive(Debug, Clone, Default)]
pub struct Ahead {
    prerender: Prerender,
    redactor: Option<SharedRedactor>,
}

impl Ahead {
    /// Renders what `prerender` asks for, redacting with what `redactor`
    /// holds at each call (the reports' own redactor), if any.
    pub fn new(prerender: Prerender, redactor: Option<SharedRedactor>) -> Ahead {
        Ahead {
            prerender,
            redactor,
        }
    }

    /// The fragments of `r` (redacted ahead when the reports redact).
    /// Pure but for reading the shared redactor; never fails: what cannot
    /// be done ahead is left to the writing thread.
    pub fn render(&self, r: &TraceResult, expected: Option<TestStatus>) -> Rendered {
        let under = match &self.redactor {
            Some(shared) => shared.current(),
            None => Redactor::default(),
        };
        if under.is_empty() {
            return Rendered::of(self.prerender, r, expected);
        }
        match redacted_copy(&under, "a result", r) {
            Ok(result) => {
                let mut out = Rendered::of(self.prerender, &result, expected);
                out.redacted = Some(Box::new(RedactedAhead { under, result }));
                out
            }
            Err(_) => Rendered::none(),
        }
    }
}

impl From<Prerender> for Ahead {
    fn from(prerender: Prerender) -> Ahead {
        Ahead::new(prerender, None)
    }
}
