//! The run-level `redacted-secret` warning (SPEC §4): the target's
//! answers held a key pactum holds. pactum replaced it with `[redacted]`
//! before storing, grading or judging, and recorded where
//! ([`pactum_core::trace::Turn::redacted`]); this tally names the traces
//! and places, never the key (it never sees one).

use pactum_core::text::one_line;
use pactum_core::trace::RedactedAt;

use crate::Warning;

/// How many traces are named in the warning; the rest are counted.
const SHOWN: usize = 3;

/// The traces whose target answers held a key pactum holds, as graded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedactedSecrets {
    traces: u64,
    places: u64,
    shown: Vec<String>,
}

impl RedactedSecrets {
    /// Counts trace `trace_id` when pactum redacted a secret from its
    /// answers at `at` (nothing when `at` is empty).
    pub fn add(&mut self, trace_id: &str, at: &[RedactedAt]) {
        if at.is_empty() {
            return;
        }
        self.traces += 1;
        self.places += at.len() as u64;
        if self.shown.len() < SHOWN {
            let places: Vec<String> = at.iter().take(3).map(ToString::to_string).collect();
            let more = if at.len() > 3 {
                format!(" and {} more", at.len() - 3)
            } else {
                String::new()
            };
            self.shown.push(format!(
                "{} ({}{more})",
                one_line(trace_id, 80),
                places.join(", ")
            ));
        }
    }

    /// The `redacted-secret` warning, or `None` when no answer held a key.
    pub fn warning(&self) -> Option<Warning> {
        if self.traces == 0 {
            return None;
        }
        let more = if self.traces > self.shown.len() as u64 {
            format!(" and {} more", self.traces - self.shown.len() as u64)
        } else {
            String::new()
        };
        Some(Warning {
            code: "redacted-secret".into(),
            message: format!(
                "the target's answers held a key pactum holds, in {} place(s) of {} trace(s): {}{more}. pactum replaced it with [redacted] before storing, grading or judging them, so a check that found nothing there, and a judge that did not see the behaviour, are undetermined: treat the key as leaked and rotate it",
                self.places,
                self.traces,
                self.shown.join("; ")
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pactum_core::trace::Channel;

    fn at(turn: usize, channel: Channel) -> RedactedAt {
        RedactedAt { turn, channel }
    }

    #[test]
    fn names_the_traces_and_places_and_counts_the_rest() {
        let mut r = RedactedSecrets::default();
        r.add("clean", &[]);
        assert_eq!(r.warning(), None);
        r.add(
            "bank/1",
            &[at(1, Channel::Response), at(2, Channel::ToolCalls)],
        );
        let w = r.warning().expect("a warning");
        assert_eq!(w.code, "redacted-secret");
        assert!(
            w.message.contains(
                "in 2 place(s) of 1 trace(s): bank/1 (turn 1 response, turn 2 tool_calls)."
            ),
            "{}",
            w.message
        );
        for i in 0..5 {
            let places: Vec<RedactedAt> = (1..=5).map(|t| at(t, Channel::Response)).collect();
            r.add(&format!("t{i}\u{1b}[2J"), &places);
        }
        let w = r.warning().expect("a warning");
        assert!(w.message.contains("of 6 trace(s)"), "{}", w.message);
        assert!(
            w.message.contains("turn 3 response and 2 more)"),
            "{}",
            w.message
        );
        assert!(
            w.message.contains("; t1") && !w.message.contains("t2"),
            "{}",
            w.message
        );
        assert!(w.message.contains(" and 3 more."), "{}", w.message);
        assert!(!w.message.contains('\u{1b}'), "{}", w.message);
    }
}
