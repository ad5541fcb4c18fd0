//! What every pipeline redacts (SPEC §4): the one rule,
//! [`pactum_core::secret::redaction_rule`], fed with the environment's key
//! variables ([`pactum_runner::env_keys`]) and, as traces stream by, the
//! key-shaped tokens each one holds. The reports, the terminal, the store
//! and a judge's prompt all redact what [`Shown`] holds.

use std::collections::BTreeSet;

use pactum_core::secret::{
    check_secret, key_tokens, looks_like_key, redaction_rule, text_secrets, trace_secrets, Redactor,
};
use pactum_core::trace::Trace;

use crate::{PipelineError, Sink};

/// The secrets a pipeline keeps out of everything it shows or stores:
/// those it started with, and the key-shaped tokens of every trace seen
/// since.
#[derive(Debug, Clone)]
pub(crate) struct Shown {
    redactor: Redactor,
    seen: BTreeSet<String>,
    /// Distinct key-shaped tokens found in the traces.
    tokens: usize,
    /// The values of credential variables that do not look like keys:
    /// secrets wherever a trace writes them ([`redaction_rule`]).
    watched: Vec<String>,
}

impl Shown {
    /// The rule over `known` (a judge's key, a suite's secrets), the key
    /// variables `named` (`api_key_env`) and the usual `*_API_KEY`
    /// variables of the environment, and the key-shaped tokens of `texts`.
    ///
    /// # Errors
    /// [`PipelineError::Invalid`] when the secrets cannot be searched for.
    pub(crate) fn new<'a, 'n>(
        known: &Redactor,
        named: impl IntoIterator<Item = &'n str>,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Result<Shown, PipelineError> {
        let env = pactum_runner::env_keys(named);
        let redactor = redaction_rule(known, &env, texts)
            .map_err(|e| PipelineError::Invalid(format!("the keys to redact {e}")))?;
        // The rule takes such a value where the first texts write it; a
        // trace read later may write it too.
        let watched = env
            .ambient
            .iter()
            .filter_map(|v| check_secret(v).ok())
            .filter(|v| !looks_like_key(v) && !v.contains(char::is_whitespace))
            .map(str::to_string)
            .collect();
        Ok(Shown {
            redactor,
            seen: BTreeSet::new(),
            tokens: 0,
            watched,
        })
    }

    /// The credential variables' values watched for in every trace
    /// ([`trace_secrets`]), for the thread that reads a trace.
    pub(crate) fn watched(&self) -> &[String] {
        &self.watched
    }

    /// Every secret known so far.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// How many distinct key-shaped tokens [`Self::trace`] found.
    pub(crate) fn tokens(&self) -> usize {
        self.tokens
    }

    /// Learns the key-shaped tokens of `trace` before anything of it is
    /// shown: the new ones join the secrets, and `sink` redacts them from
    /// every later event. Returns whether `trace` holds any (known or new).
    pub(crate) fn trace(&mut self, trace: &Trace, sink: &mut dyn Sink) -> bool {
        self.learn(trace_secrets(trace, &self.watched), sink)
    }

    /// As [`Self::trace`], with the trace's tokens found already
    /// ([`trace_secrets`] of [`Self::watched`], on the thread that read
    /// it).
    pub(crate) fn found(&mut self, tokens: Vec<String>, sink: &mut dyn Sink) -> bool {
        self.learn(tokens, sink)
    }

    /// As [`Self::trace`], for untrusted text about to be shown that is no
    /// trace (an input error quoting a record that could not be read).
    pub(crate) fn text(&mut self, text: &str, sink: &mut dyn Sink) -> bool {
        self.learn(text_secrets(text, &self.watched), sink)
    }

    fn learn(&mut self, found: Vec<String>, sink: &mut dyn Sink) -> bool {
        let any = !found.is_empty();
        let new: Vec<String> = found
            .into_iter()
            .filter(|t| self.seen.insert(t.clone()))
            .collect();
        if new.is_empty() {
            return any;
        }
        self.tokens += new.len();
        // `key_tokens` hands over only values `Redactor` accepts.
        if let Ok(more) = Redactor::new(&new) {
            if let Ok(all) = self.redactor.with(&more) {
                self.redactor = all;
            }
            sink.redact_with(&more);
        }
        any
    }
}

/// An error message with every key written in it (a path or a line
/// quoted from an input; SPEC §4) replaced by `[redacted]`, or `code` alone when it
/// cannot be. A key written as it is found, in any ASCII case, is
/// replaced whole, and so is a copy of its first eight characters or
/// more (a key cut short where the message is bounded): the words beside
/// it stay whole, where a redactor's fragment matching would cut
/// `root.prose.md` beside a key ending `.prose.md`. A key found only
/// through an encoding is left to the redactor.
pub fn redact_message(text: String, code: &str) -> String {
    const SHORTEST: usize = 8;
    let mut tokens = key_tokens(&text);
    if tokens.is_empty() {
        return text;
    }
    tokens.sort_by_key(|t| std::cmp::Reverse(t.len()));
    let mut plain = text.clone();
    for t in &tokens {
        let lower = t.to_ascii_lowercase();
        let (mut k, mut from) = (lower.len(), 0);
        while k >= SHORTEST {
            if !lower.is_char_boundary(k) {
                k -= 1;
                continue;
            }
            // Each replacement moves on past itself: this ends.
            match plain.to_ascii_lowercase()[from..].find(&lower[..k]) {
                Some(at) => {
                    let at = from + at;
                    plain.replace_range(at..at + k, pactum_core::secret::REDACTED);
                    from = at + pactum_core::secret::REDACTED.len();
                }
                None => (k, from) = (k - 1, 0),
            }
        }
    }
    if key_tokens(&plain).is_empty() {
        return plain;
    }
    match Redactor::new(key_tokens(&text)) {
        Ok(r) => r.redact_string(text),
        Err(_) => code.to_string(),
    }
}
