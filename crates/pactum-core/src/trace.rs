//! The trace model (SPEC §2) and observability levels (SPEC §3.2).
//!
//! A [`Trace`] is what the target did in one conversation. Importers in
//! `pactum-trace` build it from files; targets in later crates build it
//! live. The observability level is a required field: there is no default.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One kind of evidence (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The target's response text.
    Response,
    /// The tool calls the target made (names, arguments, results).
    ToolCalls,
    /// Side effects the adapter reports (kind, details).
    SideEffects,
}

impl Channel {
    /// The snake_case name used in files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Response => "response",
            Channel::ToolCalls => "tool_calls",
            Channel::SideEffects => "side_effects",
        }
    }
}

/// Which channels the adapter that captured a trace reports (SPEC §2, §3.2).
/// Declared, never inferred from an empty list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObservabilityLevel {
    /// Response text only.
    ResponseOnly,
    /// Response text and tool calls.
    ToolCalls,
    /// Response text, tool calls and side effects.
    Full,
}

impl ObservabilityLevel {
    /// Every level, weakest first.
    pub const ALL: [ObservabilityLevel; 3] = [
        ObservabilityLevel::ResponseOnly,
        ObservabilityLevel::ToolCalls,
        ObservabilityLevel::Full,
    ];

    /// Whether this level reports `channel`. Response text is observed at
    /// every level (SPEC §3.2).
    pub fn observes(self, channel: Channel) -> bool {
        match channel {
            Channel::Response => true,
            Channel::ToolCalls => self != ObservabilityLevel::ResponseOnly,
            Channel::SideEffects => self == ObservabilityLevel::Full,
        }
    }

    /// The strongest level at or below this one that does not observe
    /// `channel`: what a trace's level becomes when pactum withholds the
    /// channel itself (`--withhold`), so that nothing read from the channel
    /// can be taken for "nothing happened" (SPEC §3.2). Withholding tool
    /// calls leaves `response_only` (no level reports side effects without
    /// tool calls); withholding side effects leaves at most `tool_calls`.
    /// Response text is observed at every level: withheld, every response
    /// is missing, which text checks already read as undetermined.
    pub fn without(self, channel: Channel) -> ObservabilityLevel {
        Self::ALL
            .into_iter()
            .rev()
            .find(|l| *l <= self && (channel == Channel::Response || !l.observes(channel)))
            .unwrap_or(ObservabilityLevel::ResponseOnly)
    }

    /// The snake_case name used in files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ObservabilityLevel::ResponseOnly => "response_only",
            ObservabilityLevel::ToolCalls => "tool_calls",
            ObservabilityLevel::Full => "full",
        }
    }

    /// Parses the snake_case name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

/// Who wrote an input message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The system prompt or developer instructions.
    System,
    /// The user (or the simulated user).
    User,
}

/// One input message that led to a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

/// One tool call the target made (SPEC §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The call's arguments, as [`crate::chat::decode_arguments`] reads
    /// them: an object (the arguments); a string (argument text pactum
    /// could not decode as a JSON object); `null` (no arguments recorded).
    /// See [`ToolCall::readable_arguments`].
    #[serde(default)]
    pub arguments: Value,
    /// What the tool returned, when recorded (a string or any JSON value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error the call ended in, when it did. An errored call still
    /// counts as made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ToolCall {
    /// The arguments when pactum could read them as JSON; `None` when they
    /// were not recorded (`null`) or were recorded as text it could not
    /// decode (a string). A condition on arguments pactum could not read
    /// is undetermined, never "no such call" (SPEC §3.2).
    pub fn readable_arguments(&self) -> Option<&Value> {
        match &self.arguments {
            Value::Null | Value::String(_) => None,
            other => Some(other),
        }
    }
}

/// A side effect the adapter reported (SPEC §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideEffect {
    /// The effect's kind, e.g. `http_request`, `email_sent`, `file_write`.
    pub kind: String,
    /// Its details as JSON.
    #[serde(default)]
    pub details: Value,
}

/// Token usage of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt (input) tokens.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Completion (output) tokens.
    #[serde(default)]
    pub completion_tokens: u64,
}

/// One turn: the input message(s) that started it and everything the target
/// did until the next input (SPEC §2). In an agent trace, one turn holds
/// every model step between two user messages.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Turn {
    /// The input messages that started this turn (system and user).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input: Vec<Message>,
    /// The target's own response text. `None` means nothing was recorded
    /// (missing or null); `Some("")` is a recorded empty answer. When the
    /// target spoke several times in one turn, the texts are joined with a
    /// blank line.
    #[serde(default)]
    pub response: Option<String>,
    /// Tool calls made in this turn, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Side effects reported for this turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub side_effects: Vec<SideEffect>,
    /// Wall time the target took for this turn, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// Token usage of this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The channels of this turn in which pactum replaced a secret it
    /// holds with [`crate::secret::REDACTED`] (SPEC §4), recorded where the
    /// replacement was made — never found by searching for the marker,
    /// which a target may write itself. Empty: nothing was redacted, or
    /// nothing was recorded. What was replaced is unseen, so a check that
    /// found nothing in such a channel answers undetermined
    /// (`docs/predicates.md`, "Text pactum redacted").
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub redacted: BTreeSet<Channel>,
}

/// One place pactum replaced a secret in a trace: a 1-based turn and the
/// channel ([`Turn::redacted`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RedactedAt {
    /// 1-based turn.
    pub turn: usize,
    /// The channel.
    pub channel: Channel,
}

impl std::fmt::Display for RedactedAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "turn {} {}", self.turn, self.channel.as_str())
    }
}

/// Where a trace came from, for messages that name file and line.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SourceRef {
    /// The file path as given.
    pub file: String,
    /// 1-based line of the record (JSONL, CSV), or of the array element's
    /// start (JSON).
    pub line: u64,
}

/// What the target did in one conversation (SPEC §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// A stable identifier, unique within one input.
    pub id: String,
    /// Which channels the capturing adapter reports. Required.
    pub observability: ObservabilityLevel,
    /// The turns, in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// Every other field of the source record, reachable by `field` checks,
    /// contract selectors and expected-status labels (JSON pointers are
    /// resolved against this object).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub metadata: Value,
    /// Set when the target (or the recording) failed: the trace is then
    /// never evidence of compliance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Set when the recording stops before the target finished (e.g. it
    /// ends on a tool result the target never answered). What was recorded
    /// still counts, but an absence is no evidence: a check that finds
    /// nothing answers undetermined, never "not detected" (SPEC §1.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    /// Set when the recording is known to end where the conversation
    /// ended, by a marker the user named (`--ended-by`, e.g. tau-bench's
    /// user message `###STOP###`): what it says is which marker, in which
    /// message. Its one effect: a last turn that recorded neither a
    /// response nor a tool call (the marker message itself, which the
    /// target was not meant to answer) is left out of grading, so it
    /// neither makes the recording incomplete nor counts as a missing
    /// answer. It never clears `incomplete`, which wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<String>,
    /// Where the trace was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// The names of the tools the target was offered, when pactum knows
    /// them: set by the runner from an `openai` target's `tools:`, kept by
    /// the store, read from pactum's own trace format. `None`: not
    /// recorded — never inferred from the calls a trace holds. A check on a
    /// tool outside the list that matched no call answers undetermined
    /// (`docs/predicates.md`, "Near misses and tools never offered").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_tools: Option<BTreeSet<String>>,
}

impl Trace {
    /// Whether the target produced anything at all: a recorded response
    /// text (even an empty one) or a tool call. A trace without a response
    /// is graded `error`, never as a pass of its prohibitions (SPEC §3.5).
    pub fn has_response(&self) -> bool {
        self.turns
            .iter()
            .any(|t| t.response.is_some() || !t.tool_calls.is_empty())
    }

    /// Whether any turn reported something on `channel`.
    pub fn reports(&self, channel: Channel) -> bool {
        match channel {
            Channel::Response => self.turns.iter().any(|t| t.response.is_some()),
            Channel::ToolCalls => self.turns.iter().any(|t| !t.tool_calls.is_empty()),
            Channel::SideEffects => self.turns.iter().any(|t| !t.side_effects.is_empty()),
        }
    }

    /// Every tool call of the trace with its 1-based turn number, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = (usize, &ToolCall)> {
        self.turns
            .iter()
            .enumerate()
            .flat_map(|(i, t)| t.tool_calls.iter().map(move |c| (i + 1, c)))
    }

    /// Every place pactum replaced a secret it holds in what the target
    /// answered, in turn order (see [`Turn::redacted`]).
    pub fn redactions(&self) -> Vec<RedactedAt> {
        self.turns
            .iter()
            .enumerate()
            .flat_map(|(i, t)| {
                t.redacted.iter().map(move |&channel| RedactedAt {
                    turn: i + 1,
                    channel,
                })
            })
            .collect()
    }

    /// Whether the target was offered a tool named `name`: `None` when the
    /// trace does not record what it was offered
    /// ([`Trace::offered_tools`]).
    pub fn offers(&self, name: &str) -> Option<bool> {
        self.offered_tools.as_ref().map(|o| o.contains(name))
    }

    /// Resolves a JSON pointer (RFC 6901) against the trace's metadata.
    pub fn field(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(&self.metadata);
        }
        self.metadata.pointer(pointer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_channel_matrix() {
        use ObservabilityLevel as L;
        let expect = [
            (L::ResponseOnly, [true, false, false]),
            (L::ToolCalls, [true, true, false]),
            (L::Full, [true, true, true]),
        ];
        let channels = [Channel::Response, Channel::ToolCalls, Channel::SideEffects];
        for (level, row) in expect {
            for (channel, observed) in channels.into_iter().zip(row) {
                assert_eq!(level.observes(channel), observed, "{level:?} {channel:?}");
            }
        }
    }

    #[test]
    fn withholding_a_channel_lowers_the_level_every_cell() {
        use Channel as C;
        use ObservabilityLevel as L;
        for (level, channel, want) in [
            (L::Full, C::ToolCalls, L::ResponseOnly),
            (L::Full, C::SideEffects, L::ToolCalls),
            (L::Full, C::Response, L::Full),
            (L::ToolCalls, C::ToolCalls, L::ResponseOnly),
            (L::ToolCalls, C::SideEffects, L::ToolCalls),
            (L::ToolCalls, C::Response, L::ToolCalls),
            (L::ResponseOnly, C::ToolCalls, L::ResponseOnly),
            (L::ResponseOnly, C::SideEffects, L::ResponseOnly),
            (L::ResponseOnly, C::Response, L::ResponseOnly),
        ] {
            let got = level.without(channel);
            assert_eq!(got, want, "{level:?} without {channel:?}");
            if channel != C::Response {
                assert!(!got.observes(channel));
            }
        }
    }

    #[test]
    fn level_is_required_when_deserializing() {
        let err = serde_json::from_str::<Trace>(r#"{"id":"t","turns":[]}"#).unwrap_err();
        assert!(err.to_string().contains("observability"), "{err}");
    }

    #[test]
    fn empty_response_is_a_response_but_missing_is_not() {
        let mut t = Trace {
            id: "t".into(),
            observability: ObservabilityLevel::Full,
            turns: vec![Turn::default()],
            metadata: Value::Null,
            error: None,
            incomplete: None,
            ended_by: None,
            source: None,
            offered_tools: None,
        };
        assert!(!t.has_response());
        t.turns[0].response = Some(String::new());
        assert!(t.has_response());
    }
}
