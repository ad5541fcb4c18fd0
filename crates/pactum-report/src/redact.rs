//! The last gate before a report is written or printed (SPEC §4): a
//! reporter that redacts a run's secrets from every event it passes on.

use std::sync::{Arc, Mutex};

use pactum_core::secret::Redactor;
use pactum_core::{TestStatus, TraceResult};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{
    ContractInfo, ExpectationsInfo, InputError, MissingTrial, Rendered, ReportError, Reporter,
    RunEnd, RunInfo,
};

/// Wraps a reporter: every text of every event (trace ids, summaries,
/// evidence, rationales, reasons, errors, warnings, paths) reaches it with
/// the redactor's secrets replaced by `[redacted]`. Redaction happens on
/// the whole event, before any reporter bounds an excerpt of it.
pub struct Redacting<R> {
    inner: R,
    redactor: SharedRedactor,
}

/// A redactor that can learn more secrets while the run goes on (a key
/// found in the next trace): every [`Redacting`] built over it redacts
/// what it holds at each event.
#[derive(Debug, Clone, Default)]
pub struct SharedRedactor(Arc<Mutex<Redactor>>);

impl SharedRedactor {
    /// A shared redactor holding `redactor`'s secrets.
    pub fn new(redactor: Redactor) -> Self {
        SharedRedactor(Arc::new(Mutex::new(redactor)))
    }

    /// The secrets it holds now.
    pub fn current(&self) -> Redactor {
        match self.0.lock() {
            Ok(r) => r.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// How many secrets it holds now.
    pub fn len(&self) -> usize {
        match self.0.lock() {
            Ok(r) => r.len(),
            Err(p) => p.into_inner().len(),
        }
    }

    /// Whether it holds no secret now (then events pass unchanged).
    pub fn is_empty(&self) -> bool {
        match self.0.lock() {
            Ok(r) => r.is_empty(),
            Err(p) => p.into_inner().is_empty(),
        }
    }

    /// Adds `more`'s secrets to it.
    ///
    /// # Errors
    /// When the secrets together cannot be searched for
    /// ([`pactum_core::secret::SecretError::Matcher`]).
    pub fn add(&self, more: &Redactor) -> Result<(), pactum_core::secret::SecretError> {
        let mut r = match self.0.lock() {
            Ok(r) => r,
            Err(p) => p.into_inner(),
        };
        *r = r.with(more)?;
        Ok(())
    }
}

/// `value` with every string in it (keys included) redacted by
/// `redactor`: the one way a report event is redacted, on whichever
/// thread.
///
/// # Errors
/// [`ReportError::Redaction`] naming `what` when `value` does not come
/// back from JSON.
pub(crate) fn redacted_copy<T: Serialize + DeserializeOwned + Clone>(
    redactor: &Redactor,
    what: &'static str,
    value: &T,
) -> Result<T, ReportError> {
    let lost = || ReportError::Redaction { what };
    // Most results hold no secret: found so without building their JSON.
    if !redactor.changes(value) {
        return Ok(value.clone());
    }
    let mut v = serde_json::to_value(value).map_err(|_| lost())?;
    if !redactor.redact_value(&mut v) {
        // Nothing was replaced: the value itself, not its round trip.
        return Ok(value.clone());
    }
    serde_json::from_value(v).map_err(|_| lost())
}

impl<R: Reporter> Redacting<R> {
    /// `inner`, redacting `redactor`'s secrets.
    pub fn new(inner: R, redactor: Redactor) -> Self {
        Redacting {
            inner,
            redactor: SharedRedactor::new(redactor),
        }
    }

    /// `inner`, redacting the secrets `redactor` holds at each event.
    pub fn shared(inner: R, redactor: SharedRedactor) -> Self {
        Redacting { inner, redactor }
    }

    /// `value` with every string in it redacted.
    fn clean<T: Serialize + DeserializeOwned + Clone>(
        &self,
        what: &'static str,
        value: &T,
    ) -> Result<T, ReportError> {
        redacted_copy(&self.redactor.current(), what, value)
    }

    fn text(&self, s: &str) -> String {
        self.redactor.current().redact(s).into_owned()
    }
}

impl<R: Reporter> Reporter for Redacting<R> {
    fn begin(&mut self, info: &RunInfo) -> Result<(), ReportError> {
        if self.redactor.is_empty() {
            return self.inner.begin(info);
        }
        let info = RunInfo {
            command: self.text(&info.command),
            pactum_version: info.pactum_version.clone(),
            policy: info.policy,
            contracts: info
                .contracts
                .iter()
                .map(|c| ContractInfo {
                    id: self.text(&c.id),
                    path: self.text(&c.path),
                    digest: c.digest.clone(),
                })
                .collect(),
            authored_tests: info.authored_tests,
            expectations: info.expectations.as_ref().map(|e| ExpectationsInfo {
                path: self.text(&e.path),
                pointer: self.text(&e.pointer),
            }),
            run: info.run.as_deref().map(|r| self.text(r)),
        };
        self.inner.begin(&info)
    }

    fn result(&mut self, r: &TraceResult, expected: Option<TestStatus>) -> Result<(), ReportError> {
        if self.redactor.is_empty() {
            return self.inner.result(r, expected);
        }
        let r = self.clean("a result", r)?;
        self.inner.result(&r, expected)
    }

    /// Fragments rendered ahead pass when there is nothing to redact, or
    /// when they are of a copy redacted ahead by this very redactor as it
    /// is now ([`crate::Ahead`]); otherwise the result is redacted here.
    fn result_rendered(
        &mut self,
        r: &TraceResult,
        expected: Option<TestStatus>,
        rendered: &Rendered,
    ) -> Result<(), ReportError> {
        let current = self.redactor.current();
        if current.is_empty() {
            return self.inner.result_rendered(r, expected, rendered);
        }
        if let Some(ahead) = &rendered.redacted {
            if ahead.under.is_same(&current) {
                return self
                    .inner
                    .result_rendered(&ahead.result, expected, rendered);
            }
        }
        let r = redacted_copy(&current, "a result", r)?;
        self.inner.result(&r, expected)
    }
    fn wants_transcripts(&self) -> bool {
        self.inner.wants_transcripts()
    }

    fn settled(&self) -> Option<u64> {
        self.inner.settled()
    }

    /// The trace redacted by the same redactor as every other event.
    fn transcript(&mut self, t: &pactum_core::trace::Trace) -> Result<(), ReportError> {
        if !self.inner.wants_transcripts() {
            return Ok(());
        }
        if self.redactor.is_empty() {
            return self.inner.transcript(t);
        }
        let t = self.clean("a transcript", t)?;
        self.inner.transcript(&t)
    }

    fn reading(&mut self, r: &crate::Reading) -> Result<(), ReportError> {
        if self.redactor.is_empty() {
            return self.inner.reading(r);
        }
        let r = self.clean("an interpretation", r)?;
        self.inner.reading(&r)
    }

    fn input_error(&mut self, e: &InputError) -> Result<(), ReportError> {
        if self.redactor.is_empty() {
            return self.inner.input_error(e);
        }
        let e = self.clean("an input error", e)?;
        self.inner.input_error(&e)
    }

    fn missing_trial(&mut self, m: &MissingTrial) -> Result<(), ReportError> {
        if self.redactor.is_empty() {
            return self.inner.missing_trial(m);
        }
        let m = self.clean("a missing trial", m)?;
        self.inner.missing_trial(&m)
    }

    fn finish(&mut self, end: &RunEnd) -> Result<(), ReportError> {
        if self.redactor.is_empty() {
            return self.inner.finish(end);
        }
        let end = self.clean("the run's warnings", end)?;
        self.inner.finish(&end)
    }
}
