//! Turn scopes (`any`, `every`, `final`) and the observability rule of
//! SPEC §3.2, shared by every predicate that reads turns one by one.
//!
//! A per-turn predicate answers `D`, `N` or `U` for each turn; this module
//! combines those answers under the scope and turns the result into an
//! [`Evaluation`] with capped evidence and a rationale.

use pactum_core::contract::TurnScope;
use pactum_core::outcome::{Evaluation, Evidence, Outcome};
use pactum_core::trace::{Channel, ObservabilityLevel, Trace};

/// The most evidence items one predicate reports; the rationale says how
/// many more there were.
pub const MAX_EVIDENCE: usize = 5;

/// One turn's answer.
#[derive(Debug, Clone)]
pub(crate) struct TurnResult {
    /// 1-based turn number.
    pub turn: usize,
    pub outcome: Outcome,
    pub evidence: Vec<Evidence>,
    /// Why, when there is more to say than the outcome (an echo, a parse
    /// error, the refusal detector's rationale, a missing response).
    pub note: Option<String>,
}

/// A channel a predicate needs that the trace's declared level does not
/// observe.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gap {
    pub level: ObservabilityLevel,
    pub channel: Channel,
}

impl Gap {
    /// `Some` when `level` does not observe `channel`.
    pub(crate) fn of(level: ObservabilityLevel, channel: Option<Channel>) -> Option<Gap> {
        channel
            .filter(|c| !level.observes(*c))
            .map(|channel| Gap { level, channel })
    }

    /// The SPEC §3.2 reason: the declared level, the missing channel and
    /// what the predicate looked for.
    pub(crate) fn reason(&self, describe: &str) -> String {
        format!(
            "level {} does not observe {}; looked for {describe}",
            self.level.as_str(),
            self.channel.as_str()
        )
    }

    pub(crate) fn undetermined(&self, describe: &str, extra: Option<String>) -> Evaluation {
        let mut reason = self.reason(describe);
        if let Some(x) = extra {
            reason.push_str(" (");
            reason.push_str(&x);
            reason.push(')');
        }
        Evaluation::undetermined(describe, reason, Some(self.channel))
    }
}

/// Whether pactum redacted a secret it holds from `channel` of 1-based
/// turn `turn` ([`pactum_core::trace::Turn::redacted`]): what it replaced
/// there is unseen by every check.
pub(crate) fn redacted(trace: &Trace, turn: usize, channel: Channel) -> bool {
    turn.checked_sub(1)
        .and_then(|i| trace.turns.get(i))
        .is_some_and(|t| t.redacted.contains(&channel))
}

/// Why a check that found nothing in `channel` of `turns` cannot say
/// "not there": `pactum redacted a secret it holds from the response of
/// turn(s) 1, 3: what it replaced cannot be checked`.
pub(crate) fn redaction_note(channel: Channel, turns: &[usize]) -> String {
    let mut turns = turns.to_vec();
    turns.sort_unstable();
    turns.dedup();
    let what = match channel {
        Channel::Response => "response",
        Channel::ToolCalls => "tool calls",
        Channel::SideEffects => "side effects",
    };
    let shown: Vec<String> = turns.iter().take(8).map(ToString::to_string).collect();
    let more = if turns.len() > 8 {
        format!(" and {} more", turns.len() - 8)
    } else {
        String::new()
    };
    format!(
        "pactum redacted a secret it holds from the {what} of turn(s) {}{more}: what it replaced cannot be checked",
        shown.join(", ")
    )
}

/// Combines per-turn answers under `scope` (turns in order):
/// * `any`: `D` if some turn is `D`; else `U` if some turn is `U`; else `N`.
/// * `every`: `N` if some turn is `N`; else `U` if some turn is `U`; else
///   `N` when there are no turns; else `D`.
/// * `final`: the last turn's answer; `N` when there are no turns.
///
/// Under a `gap` (the channel is not observed) a settled `N` becomes `U`
/// with the SPEC §3.2 reason: nothing was found, and nothing could be.
pub(crate) fn finish(
    describe: &str,
    scope: TurnScope,
    turns: Vec<TurnResult>,
    gap: Option<Gap>,
) -> Evaluation {
    let total = turns.len();
    let has = |o: Outcome| turns.iter().any(|t| t.outcome == o);
    let outcome = match scope {
        TurnScope::Any if has(Outcome::Detected) => Outcome::Detected,
        TurnScope::Any if has(Outcome::Undetermined) => Outcome::Undetermined,
        TurnScope::Any => Outcome::NotDetected,
        TurnScope::Every if has(Outcome::NotDetected) || total == 0 => Outcome::NotDetected,
        TurnScope::Every if has(Outcome::Undetermined) => Outcome::Undetermined,
        TurnScope::Every => Outcome::Detected,
        TurnScope::Final => turns.last().map_or(Outcome::NotDetected, |t| t.outcome),
    };
    let deciding: Vec<TurnResult> = match scope {
        TurnScope::Final => turns.into_iter().last().into_iter().collect(),
        _ => turns.into_iter().filter(|t| t.outcome == outcome).collect(),
    };
    if let Some(gap) = gap {
        if outcome != Outcome::Detected {
            return gap.undetermined(describe, None);
        }
    }
    let numbers = turn_list(&deciding);
    let notes: Vec<String> = deciding
        .iter()
        .filter_map(|t| t.note.as_ref().map(|n| format!("turn {}: {n}", t.turn)))
        .collect();
    let head = match (scope, outcome) {
        (_, _) if total == 0 => "the trace has no turns".to_string(),
        (TurnScope::Final, o) => format!("final turn {numbers}: {}", o.as_str().replace('_', " ")),
        (TurnScope::Any, Outcome::Detected) => format!("detected in turn(s) {numbers}"),
        (TurnScope::Any, Outcome::NotDetected) => {
            format!("not detected in any of {total} turn(s)")
        }
        (TurnScope::Every, Outcome::Detected) => format!("detected in every turn ({total})"),
        (TurnScope::Every, Outcome::NotDetected) => {
            format!("not detected in turn(s) {numbers}, and every turn must show it")
        }
        (_, Outcome::Undetermined) => format!("could not tell in turn(s) {numbers}"),
    };
    let mut rationale = format!("{describe}: {head}");
    append_list(&mut rationale, &notes, 3);
    if outcome == Outcome::Undetermined {
        let reason = rationale;
        return Evaluation::undetermined(describe, reason, None);
    }
    let evidence: Vec<Evidence> = deciding.into_iter().flat_map(|t| t.evidence).collect();
    settled(outcome, evidence, rationale)
}

/// A settled evaluation with evidence capped at [`MAX_EVIDENCE`]; the
/// rationale says how many items were left out.
pub(crate) fn settled(
    outcome: Outcome,
    mut evidence: Vec<Evidence>,
    rationale: String,
) -> Evaluation {
    let mut rationale = rationale;
    if evidence.len() > MAX_EVIDENCE {
        let more = evidence.len() - MAX_EVIDENCE;
        evidence.truncate(MAX_EVIDENCE);
        rationale.push_str(&format!(
            " ({MAX_EVIDENCE} evidence items shown, {more} more)"
        ));
    }
    Evaluation::settled(outcome, evidence, rationale)
}

/// `1, 2, 3`, or `1, 2, 3 and 4 more` for long lists.
fn turn_list(turns: &[TurnResult]) -> String {
    let mut s: Vec<String> = turns.iter().take(8).map(|t| t.turn.to_string()).collect();
    if turns.len() > 8 {
        s.push(format!("and {} more", turns.len() - 8));
    }
    s.join(", ")
}

/// Appends `; a; b; c; and N more` to `s`.
pub(crate) fn append_list(s: &mut String, items: &[String], shown: usize) {
    for item in items.iter().take(shown) {
        s.push_str("; ");
        s.push_str(item);
    }
    if items.len() > shown {
        s.push_str(&format!("; and {} more", items.len() - shown));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use Outcome::*;

    fn turn(i: usize, o: Outcome) -> TurnResult {
        TurnResult {
            turn: i,
            outcome: o,
            evidence: vec![],
            note: None,
        }
    }

    /// Every scope over every sequence of up to three per-turn answers,
    /// against the rule written out independently.
    #[test]
    fn scopes_exhaustively() {
        let mut seqs: Vec<Vec<Outcome>> = vec![vec![]];
        for len in 1..=3 {
            let mut next = vec![];
            for s in seqs.iter().filter(|s| s.len() == len - 1) {
                for o in Outcome::ALL {
                    let mut t = s.clone();
                    t.push(o);
                    next.push(t);
                }
            }
            seqs.extend(next);
        }
        assert_eq!(seqs.len(), 1 + 3 + 9 + 27);
        for seq in &seqs {
            let turns = || {
                seq.iter()
                    .enumerate()
                    .map(|(i, o)| turn(i + 1, *o))
                    .collect::<Vec<_>>()
            };
            let any_d = seq.contains(&Detected);
            let any_n = seq.contains(&NotDetected);
            let any_u = seq.contains(&Undetermined);
            let want_any = if any_d {
                Detected
            } else if any_u {
                Undetermined
            } else {
                NotDetected
            };
            let want_every = if any_n || seq.is_empty() {
                NotDetected
            } else if any_u {
                Undetermined
            } else {
                Detected
            };
            let want_final = seq.last().copied().unwrap_or(NotDetected);
            for (scope, want) in [
                (TurnScope::Any, want_any),
                (TurnScope::Every, want_every),
                (TurnScope::Final, want_final),
            ] {
                let e = finish("p", scope, turns(), None);
                assert_eq!(e.outcome, want, "{scope:?} over {seq:?}");
                assert_eq!(
                    e.outcome == Undetermined,
                    !e.undetermined_operands.is_empty()
                );
                // Under a gap only D survives; everything else is U.
                let gap = Gap {
                    level: ObservabilityLevel::ResponseOnly,
                    channel: Channel::ToolCalls,
                };
                let e = finish("p", scope, turns(), Some(gap));
                let want_gap = if want == Detected {
                    Detected
                } else {
                    Undetermined
                };
                assert_eq!(e.outcome, want_gap, "gap {scope:?} over {seq:?}");
            }
        }
    }

    #[test]
    fn evidence_is_capped_and_the_rest_counted() {
        let ev = |i| Evidence::Field {
            pointer: format!("/{i}"),
            value: serde_json::Value::Null,
        };
        let e = settled(Detected, (0..8).map(ev).collect(), "r".into());
        assert_eq!(e.evidence.len(), MAX_EVIDENCE);
        assert_eq!(e.rationale, "r (5 evidence items shown, 3 more)");
    }
}
