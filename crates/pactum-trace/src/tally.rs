//! What each declared observability level actually reported, over a whole
//! input: the evidence for the "silent channel" warning of `pactum grade` (a level
//! declared wrongly is how a breach shows green, SPEC §3.2).

use std::collections::BTreeMap;

use pactum_core::trace::{Channel, ObservabilityLevel, Trace};

/// Channels in their fixed order (the tally's array index).
const CHANNELS: [Channel; 3] = [Channel::Response, Channel::ToolCalls, Channel::SideEffects];

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    traces: u64,
    /// Traces that reported something, per entry of [`CHANNELS`].
    reporting: [u64; 3],
}

/// Per declared [`ObservabilityLevel`]: how many traces were seen and how
/// many of them reported something on each channel. Counted after
/// `ImportOptions::withhold` is applied. Merging tallies of several files
/// gives the tally of the whole input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChannelTally {
    by_level: BTreeMap<ObservabilityLevel, Counts>,
}

fn index(channel: Channel) -> usize {
    match channel {
        Channel::Response => 0,
        Channel::ToolCalls => 1,
        Channel::SideEffects => 2,
    }
}

/// What one trace adds to a tally: its declared level and whether it
/// reported something on each channel. Taken where the trace is parsed,
/// added where it is delivered, so a tally counts exactly the delivered
/// traces whichever thread parsed them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    level: ObservabilityLevel,
    reporting: [bool; 3],
}

impl Shape {
    /// The shape of `trace`.
    pub(crate) fn of(trace: &Trace) -> Shape {
        Shape {
            level: trace.observability,
            reporting: CHANNELS.map(|ch| trace.reports(ch)),
        }
    }
}

impl ChannelTally {
    /// Counts one trace under its declared level.
    pub fn record(&mut self, trace: &Trace) {
        self.add(Shape::of(trace));
    }

    /// Counts one trace by its shape.
    pub(crate) fn add(&mut self, shape: Shape) {
        let c = self.by_level.entry(shape.level).or_default();
        c.traces += 1;
        for (count, reported) in c.reporting.iter_mut().zip(shape.reporting) {
            *count += u64::from(reported);
        }
    }

    /// Adds `other`'s counts to this tally.
    pub fn merge(&mut self, other: &ChannelTally) {
        for (level, o) in &other.by_level {
            let c = self.by_level.entry(*level).or_default();
            c.traces += o.traces;
            for (mine, theirs) in c.reporting.iter_mut().zip(o.reporting) {
                *mine += theirs;
            }
        }
    }

    /// The levels that at least one trace declared, weakest first.
    pub fn levels(&self) -> impl Iterator<Item = ObservabilityLevel> + '_ {
        self.by_level.keys().copied()
    }

    /// Traces seen under `level`.
    pub fn traces(&self, level: ObservabilityLevel) -> u64 {
        self.by_level.get(&level).map_or(0, |c| c.traces)
    }

    /// Traces under `level` that reported something on `channel`.
    pub fn reporting(&self, level: ObservabilityLevel, channel: Channel) -> u64 {
        self.by_level
            .get(&level)
            .map_or(0, |c| c.reporting[index(channel)])
    }

    /// `(level, channel, traces)` for every channel other than `response`
    /// that `level` observes but on which none of its `traces` reported
    /// anything, ordered by level then channel. The CLI warns once for each.
    ///
    /// `response` is left out: a trace without any response is already
    /// graded `error` on its own (SPEC §3.5), so it cannot pass silently.
    pub fn silent_channels(&self) -> Vec<(ObservabilityLevel, Channel, u64)> {
        let mut out = Vec::new();
        for (level, c) in &self.by_level {
            for ch in [Channel::ToolCalls, Channel::SideEffects] {
                if c.traces > 0 && level.observes(ch) && c.reporting[index(ch)] == 0 {
                    out.push((*level, ch, c.traces));
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pactum_core::trace::{SideEffect, ToolCall, Turn};
    use serde_json::Value;

    fn trace(level: ObservabilityLevel, calls: bool, effects: bool) -> Trace {
        let mut turn = Turn {
            response: Some("ok".into()),
            ..Turn::default()
        };
        if calls {
            turn.tool_calls.push(ToolCall {
                id: None,
                name: "f".into(),
                arguments: Value::Null,
                result: None,
                error: None,
            });
        }
        if effects {
            turn.side_effects.push(SideEffect {
                kind: "k".into(),
                details: Value::Null,
            });
        }
        Trace {
            id: "t".into(),
            observability: level,
            turns: vec![turn],
            metadata: Value::Null,
            error: None,
            incomplete: None,
            ended_by: None,
            source: None,
            offered_tools: None,
        }
    }

    /// Every level × every combination of reported channels.
    #[test]
    fn silent_channels_exhaustive() {
        for level in ObservabilityLevel::ALL {
            for calls in [false, true] {
                for effects in [false, true] {
                    let mut t = ChannelTally::default();
                    t.record(&trace(level, calls, effects));
                    t.record(&trace(level, false, false));
                    let mut want = Vec::new();
                    if level.observes(Channel::ToolCalls) && !calls {
                        want.push((level, Channel::ToolCalls, 2));
                    }
                    if level.observes(Channel::SideEffects) && !effects {
                        want.push((level, Channel::SideEffects, 2));
                    }
                    assert_eq!(
                        t.silent_channels(),
                        want,
                        "{level:?} calls={calls} effects={effects}"
                    );
                    assert_eq!(t.traces(level), 2);
                    assert_eq!(t.reporting(level, Channel::Response), 2);
                    assert_eq!(t.reporting(level, Channel::ToolCalls), u64::from(calls));
                }
            }
        }
    }

    #[test]
    fn merge_adds_and_can_silence_a_warning() {
        let mut a = ChannelTally::default();
        a.record(&trace(ObservabilityLevel::Full, false, false));
        let mut b = ChannelTally::default();
        b.record(&trace(ObservabilityLevel::Full, true, false));
        b.record(&trace(ObservabilityLevel::ResponseOnly, false, false));
        assert_eq!(a.silent_channels().len(), 2);
        a.merge(&b);
        assert_eq!(a.traces(ObservabilityLevel::Full), 2);
        assert_eq!(
            a.silent_channels(),
            [(ObservabilityLevel::Full, Channel::SideEffects, 2)]
        );
        assert_eq!(
            a.levels().collect::<Vec<_>>(),
            [ObservabilityLevel::ResponseOnly, ObservabilityLevel::Full]
        );
        assert!(ChannelTally::default().silent_channels().is_empty());
    }
}
