//! The contract model (SPEC §2): clauses, severities and the deterministic
//! predicate language their checks are written in.
//!
//! These types are the validated, immutable model. Their serde shape is the
//! file format (`docs/contracts.md`, `schemas/contract.schema.json`):
//! predicates are externally tagged single-key maps (`- contains: "refund"`).
//! Reading files with located diagnostics lives in `pactum-suite`;
//! evaluating predicates lives in `pactum-eval`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The contract file format version this build reads and writes.
pub const CONTRACT_SCHEMA_VERSION: u32 = 1;

/// How much a clause matters. Orders `low < medium < high < critical`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Cosmetic.
    Low,
    /// The default.
    #[default]
    Medium,
    /// Serious.
    High,
    /// A breach.
    Critical,
}

impl Severity {
    /// Every severity, lowest first.
    pub const ALL: [Severity; 4] = [
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::Critical,
    ];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// Whether a clause names behaviour the target must show or must not show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClauseKind {
    /// Detected → satisfied (SPEC §3.3).
    Required,
    /// Detected → violated (SPEC §3.3).
    Prohibited,
}

impl ClauseKind {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ClauseKind::Required => "required",
            ClauseKind::Prohibited => "prohibited",
        }
    }
}

/// One behaviour of the target (SPEC §2). Its predicate detects the
/// behaviour the clause names, whatever the clause's kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    /// Unique within the contract.
    pub id: String,
    /// The behaviour, stated about the target. Prohibited behaviours are
    /// named without a negation word (SPEC §2; see [`crate::lint`]).
    pub text: String,
    /// How much it matters.
    #[serde(default)]
    pub severity: Severity,
    /// A deterministic predicate that detects the behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Predicate>,
    /// A rubric for a judge. With both, the behaviour counts as detected
    /// when either detects it (`check | judge`, SPEC §3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
}

/// The clause a conditional grades once its condition holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThenClause {
    /// Required or prohibited.
    pub kind: ClauseKind,
    /// The behaviour.
    pub text: String,
    /// How much it matters.
    #[serde(default)]
    pub severity: Severity,
    /// A deterministic predicate that detects the behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Predicate>,
    /// A rubric for a judge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
}

/// A clause graded only on a path the trace took (SPEC §3.3): `when` D →
/// `then` is graded; `when` N → not triggered; `when` U → not evaluable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionalClause {
    /// Unique within the contract.
    pub id: String,
    /// The condition, e.g. "the search tool failed".
    pub when: Predicate,
    /// What must (or must not) happen then.
    pub then: ThenClause,
}

/// Which authored field a clause came from and why its wording changed
/// (SPEC §2, filled by interpretation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceNote {
    /// The clause id the note is about.
    pub clause: String,
    /// The authored field: `goal`, `instructions`, `restrictions`, `scenario`.
    pub field: String,
    /// Why the wording changed.
    #[serde(default)]
    pub note: String,
}

/// An evaluation contract (SPEC §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// File format version; [`CONTRACT_SCHEMA_VERSION`].
    pub version: u32,
    /// Unique among the contracts of one run.
    pub id: String,
    /// Free text for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Which traces this contract grades; absent means every trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<FieldMatch>,
    /// Behaviours the target must show.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<Clause>,
    /// Behaviours the target must not show, named without negation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prohibited: Vec<Clause>,
    /// Clauses graded only when their condition holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditional: Vec<ConditionalClause>,
    /// Drives a simulated user; never scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated_user_objective: Option<String>,
    /// Wording and driver pressure only; never selects a scoring rule.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adversarial: bool,
    /// Where each clause came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_notes: Vec<SourceNote>,
}

impl Contract {
    /// Number of declared clauses of every kind.
    pub fn clause_count(&self) -> usize {
        self.required.len() + self.prohibited.len() + self.conditional.len()
    }

    /// Every declared clause id, in declaration order.
    pub fn clause_ids(&self) -> impl Iterator<Item = &str> {
        self.required
            .iter()
            .chain(self.prohibited.iter())
            .map(|c| c.id.as_str())
            .chain(self.conditional.iter().map(|c| c.id.as_str()))
    }

    /// Every top-level predicate: each clause's `check`, and each
    /// conditional's `when` and `then` check, in declaration order.
    pub fn predicates(&self) -> impl Iterator<Item = &Predicate> {
        self.required
            .iter()
            .chain(self.prohibited.iter())
            .filter_map(|c| c.check.as_ref())
            .chain(
                self.conditional
                    .iter()
                    .flat_map(|c| std::iter::once(&c.when).chain(c.then.check.as_ref())),
            )
    }
}

/// Which text a text predicate reads (the speaker scope).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextSource {
    /// The target's own response text (default).
    #[default]
    Response,
    /// The user's input messages.
    User,
    /// The system prompt.
    System,
    /// The string values inside tool-call arguments.
    ToolArguments,
    /// What tools returned (text an attacker may have planted).
    ToolResults,
}

impl TextSource {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            TextSource::Response => "response",
            TextSource::User => "user",
            TextSource::System => "system",
            TextSource::ToolArguments => "tool_arguments",
            TextSource::ToolResults => "tool_results",
        }
    }
}

/// Which turns a predicate reads. There is no hidden "last turn only"
/// default: the default is `any`, and every description names the scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnScope {
    /// Detected when any turn shows it (default).
    #[default]
    Any,
    /// Detected when every turn shows it.
    Every,
    /// Only the final turn.
    Final,
}

impl TurnScope {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnScope::Any => "any",
            TurnScope::Every => "every",
            TurnScope::Final => "final",
        }
    }
}

/// Whether text the target merely echoes from its input counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EchoPolicy {
    /// A match inside a longer verbatim copy of the user's input or of a
    /// tool result is not the target's own words (default).
    #[default]
    Exclude,
    /// Every match counts.
    Include,
}

/// A literal text predicate (`contains`, `icontains`, `equals`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextMatch {
    /// The text to look for.
    pub text: String,
    /// Which text to read.
    #[serde(rename = "in")]
    pub source: TextSource,
    /// Which turns to read.
    pub turns: TurnScope,
    /// Whether echoed text counts (response text only).
    pub echo: EchoPolicy,
}

/// A regular-expression predicate (Rust `regex` syntax).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegexMatch {
    /// The pattern.
    pub pattern: String,
    /// Which text to read.
    #[serde(rename = "in")]
    pub source: TextSource,
    /// Which turns to read.
    pub turns: TurnScope,
    /// Whether echoed text counts (response text only).
    pub echo: EchoPolicy,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextMatchLong {
    text: String,
    #[serde(rename = "in", default)]
    source: TextSource,
    #[serde(default)]
    turns: TurnScope,
    #[serde(default)]
    echo: EchoPolicy,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegexMatchLong {
    pattern: String,
    #[serde(rename = "in", default)]
    source: TextSource,
    #[serde(default)]
    turns: TurnScope,
    #[serde(default)]
    echo: EchoPolicy,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ShortOr<T> {
    Short(String),
    Long(T),
}

impl<'de> Deserialize<'de> for TextMatch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match ShortOr::<TextMatchLong>::deserialize(d)? {
            ShortOr::Short(text) => TextMatch {
                text,
                source: TextSource::default(),
                turns: TurnScope::default(),
                echo: EchoPolicy::default(),
            },
            ShortOr::Long(l) => TextMatch {
                text: l.text,
                source: l.source,
                turns: l.turns,
                echo: l.echo,
            },
        })
    }
}

impl<'de> Deserialize<'de> for RegexMatch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match ShortOr::<RegexMatchLong>::deserialize(d)? {
            ShortOr::Short(pattern) => RegexMatch {
                pattern,
                source: TextSource::default(),
                turns: TurnScope::default(),
                echo: EchoPolicy::default(),
            },
            ShortOr::Long(l) => RegexMatch {
                pattern: l.pattern,
                source: l.source,
                turns: l.turns,
                echo: l.echo,
            },
        })
    }
}

/// Conditions on one JSON value; every condition given must hold.
/// A bare scalar in a file is shorthand for `equals`.
///
/// Semantics (documented in `docs/contracts.md`):
/// * `equals`: JSON equality; numbers compare by value (`1 == 1.0`).
/// * `contains`: a string contains the text; an array has an element that
///   equals it or (both strings) contains it; an object has a value equal to it.
/// * `icontains`: like `contains` on strings, case-insensitive.
/// * `regex`: a string (or a string element of an array) matches; any other
///   value is matched against its JSON text.
/// * `one_of`: equals one of the listed values.
/// * `exists`: the pointer resolves to a non-null value (`true`), or it
///   does not (`false`); JSON `null` counts as absent.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ValueMatch {
    /// Must equal this value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equals: Option<Value>,
    /// Must contain this value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contains: Option<Value>,
    /// Must contain this text, ignoring case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icontains: Option<String>,
    /// Must match this pattern.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    /// Must equal one of these.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
    /// Must (or must not) be present and non-null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ValueMatchLong {
    #[serde(default, deserialize_with = "present_value")]
    equals: Option<Value>,
    #[serde(default, deserialize_with = "present_value")]
    contains: Option<Value>,
    #[serde(default)]
    icontains: Option<String>,
    #[serde(default)]
    regex: Option<String>,
    #[serde(default)]
    one_of: Option<Vec<Value>>,
    #[serde(default)]
    exists: Option<bool>,
}

/// A key that is present holds a value, even `null` (so `equals: null`
/// round-trips instead of vanishing into "no condition").
fn present_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl<'de> Deserialize<'de> for ValueMatch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.is_object() {
            let l: ValueMatchLong = serde_json::from_value(v).map_err(serde::de::Error::custom)?;
            Ok(ValueMatch {
                equals: l.equals,
                contains: l.contains,
                icontains: l.icontains,
                regex: l.regex,
                one_of: l.one_of,
                exists: l.exists,
            })
        } else {
            Ok(ValueMatch {
                equals: Some(v),
                ..ValueMatch::default()
            })
        }
    }
}

impl ValueMatch {
    /// Whether no condition is given (vacuously true; the lint warns).
    pub fn is_empty(&self) -> bool {
        self.equals.is_none()
            && self.contains.is_none()
            && self.icontains.is_none()
            && self.regex.is_none()
            && self.one_of.is_none()
            && self.exists.is_none()
    }

    /// A short human description, e.g. `equals "x"`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(v) = &self.equals {
            parts.push(format!("equals {}", short_json(v)));
        }
        if let Some(v) = &self.contains {
            parts.push(format!("contains {}", short_json(v)));
        }
        if let Some(v) = &self.icontains {
            parts.push(format!("icontains {v:?}"));
        }
        if let Some(v) = &self.regex {
            parts.push(format!("matches /{v}/"));
        }
        if let Some(v) = &self.one_of {
            parts.push(format!("one of {}", short_json(&Value::Array(v.clone()))));
        }
        if let Some(v) = &self.exists {
            parts.push(if *v { "exists" } else { "is absent" }.to_string());
        }
        if parts.is_empty() {
            "anything".to_string()
        } else {
            parts.join(" and ")
        }
    }
}

/// A condition on a field of the trace's metadata (by JSON pointer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldMatch {
    /// JSON pointer (RFC 6901) into the trace's metadata.
    pub pointer: String,
    /// The conditions on the value there.
    #[serde(flatten)]
    pub matcher: ValueMatch,
}

/// Whether a tool call must have succeeded, failed, or either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Any call counts, errored or not (default: an errored call was still made).
    #[default]
    Any,
    /// Only calls without a recorded error.
    Ok,
    /// Only calls that ended in an error.
    Error,
}

/// Matches one tool call: its name, arguments (partial: keys not listed are
/// ignored) and status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallMatch {
    /// The tool's exact name.
    pub name: String,
    /// Argument conditions, keyed by JSON pointer into the arguments
    /// (`/recipient`, `/recipients/0`). Every listed condition must hold.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, ValueMatch>,
    /// Which calls count.
    #[serde(default, skip_serializing_if = "is_default_status")]
    pub status: CallStatus,
}

fn is_default_status(s: &CallStatus) -> bool {
    *s == CallStatus::Any
}

/// How many matching items a predicate needs. Default `min: 1`, no maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountRange {
    /// At least this many (default 1 where a count applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<u64>,
    /// At most this many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
}

impl CountRange {
    /// The lower bound, defaulting to `default_min` — but never above an
    /// explicit maximum, so `{max: 0}` alone means "none at all" rather
    /// than a range nothing can satisfy.
    pub fn min_or(&self, default_min: u64) -> u64 {
        match (self.min, self.max) {
            (Some(min), _) => min,
            (None, Some(max)) => default_min.min(max),
            (None, None) => default_min,
        }
    }

    /// Whether `n` is in range (lower bound defaulting to `default_min`).
    pub fn contains(&self, n: u64, default_min: u64) -> bool {
        n >= self.min_or(default_min) && self.max.is_none_or(|m| n <= m)
    }
}

/// `tool_called`: a call matching `call` was made, `count` times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCalledSpec {
    /// Which calls match.
    #[serde(flatten)]
    pub call: ToolCallMatch,
    /// How many matching calls (default at least one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<CountRange>,
}

/// `side_effect`: an effect of `kind` whose details match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideEffectSpec {
    /// The effect's kind.
    pub kind: String,
    /// Detail conditions keyed by JSON pointer into the details.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, ValueMatch>,
    /// How many matching effects (default at least one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<CountRange>,
}

/// Parameters of `json_valid`, which reads the response of some turns.
/// `json_valid: {}` and a bare `json_valid:` (null) both mean the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ResponseScope {
    /// Which turns to read.
    pub turns: TurnScope,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResponseScopeLong {
    #[serde(default)]
    turns: TurnScope,
}

impl<'de> Deserialize<'de> for ResponseScope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let long = Option::<ResponseScopeLong>::deserialize(d)?;
        Ok(ResponseScope {
            turns: long.map(|l| l.turns).unwrap_or_default(),
        })
    }
}

/// Which refusals the `refusal` predicate detects (docs/predicates.md,
/// docs/refusal.md). No default: a refusal that goes on to deliver is a
/// refusal for one form and not for the other, and which form is strict
/// depends on the clause's direction, so the author names it.
///
/// | form | detected | not detected |
/// |---|---|---|
/// | `full` | declines and delivers nothing of substance | complies, or declines and then delivers (steps, code, a pivot, a second persona) |
/// | `any` | declines, fully or in part (a refusal then delivery included) | no refusal at all |
///
/// `full` is the strict form where a detected refusal makes a clause hold
/// (a required refusal; `not: {refusal}` as a prohibited check); `any` is
/// the strict form where it makes a clause fail (a prohibited refusal: the
/// over-refusal check). [`Predicate::refusal_polarities`] tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalKind {
    /// A full refusal: nothing delivered beside it.
    Full,
    /// Any refusal, full or partial.
    Any,
}

impl RefusalKind {
    /// Both forms.
    pub const ALL: [RefusalKind; 2] = [RefusalKind::Full, RefusalKind::Any];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalKind::Full => "full",
            RefusalKind::Any => "any",
        }
    }

    /// The form that can never pass a delivered answer where a detected
    /// refusal leads to `polarity`.
    pub fn strict_for(polarity: Polarity) -> RefusalKind {
        match polarity {
            Polarity::Holds => RefusalKind::Full,
            Polarity::Fails => RefusalKind::Any,
        }
    }
}

/// `refusal`: the target refused, in the form `kind`, in `turns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefusalSpec {
    /// Full refusals only, or any refusal (required: no default).
    pub kind: RefusalKind,
    /// Which turns to read.
    #[serde(default)]
    pub turns: TurnScope,
}

/// What a predicate detecting something does to its clause, read through
/// the `not`s above it (Kleene `all` and `any` keep the direction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Polarity {
    /// Detected makes the clause hold: under a required clause's check,
    /// or under one `not` in a prohibited clause's check.
    Holds,
    /// Detected makes the clause fail: under a prohibited clause's check,
    /// or under one `not` in a required clause's check.
    Fails,
}

impl Polarity {
    /// The polarity of a clause's whole check (SPEC §3.3).
    pub fn of_check(kind: ClauseKind) -> Polarity {
        match kind {
            ClauseKind::Required => Polarity::Holds,
            ClauseKind::Prohibited => Polarity::Fails,
        }
    }

    /// The other direction (under a `not`).
    pub fn flip(self) -> Polarity {
        match self {
            Polarity::Holds => Polarity::Fails,
            Polarity::Fails => Polarity::Holds,
        }
    }
}

/// `json_schema`: the response is JSON that conforms to `schema`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonSchemaSpec {
    /// The JSON Schema (a `schema_file` in a contract file is inlined here
    /// when the file is read).
    pub schema: Value,
    /// Which turns to read.
    #[serde(default)]
    pub turns: TurnScope,
}

/// A deterministic predicate: detects a behaviour in a trace (SPEC §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Predicate {
    /// Kleene conjunction of every operand (SPEC §3.1).
    All(Vec<Predicate>),
    /// Kleene disjunction of every operand.
    Any(Vec<Predicate>),
    /// Kleene negation.
    Not(Box<Predicate>),
    /// The text contains a literal, case-sensitively.
    Contains(TextMatch),
    /// The text contains a literal, ignoring case.
    Icontains(TextMatch),
    /// The whole text (trimmed) equals a literal.
    Equals(TextMatch),
    /// The text matches a regular expression.
    Regex(RegexMatch),
    /// A matching tool call was made.
    ToolCalled(ToolCalledSpec),
    /// Matching tool calls were made in this order (not necessarily adjacent).
    ToolSequence(Vec<ToolCallMatch>),
    /// A matching side effect was reported.
    SideEffect(SideEffectSpec),
    /// The target refused, fully or in any form (the documented
    /// deterministic detector, docs/refusal.md).
    Refusal(RefusalSpec),
    /// The response is valid JSON.
    JsonValid(ResponseScope),
    /// The response is JSON conforming to a schema.
    JsonSchema(JsonSchemaSpec),
    /// The trace's number of turns is in range.
    TurnCount(CountRange),
    /// A metadata field of the trace matches.
    Field(FieldMatch),
}

/// Shortens a JSON value's text for descriptions (at most 60 characters).
pub fn short_json(v: &Value) -> String {
    let s = v.to_string();
    crate::text::truncate_chars(&s, 60)
}

impl Predicate {
    /// The predicate's name as written in files.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Predicate::All(_) => "all",
            Predicate::Any(_) => "any",
            Predicate::Not(_) => "not",
            Predicate::Contains(_) => "contains",
            Predicate::Icontains(_) => "icontains",
            Predicate::Equals(_) => "equals",
            Predicate::Regex(_) => "regex",
            Predicate::ToolCalled(_) => "tool_called",
            Predicate::ToolSequence(_) => "tool_sequence",
            Predicate::SideEffect(_) => "side_effect",
            Predicate::Refusal(_) => "refusal",
            Predicate::JsonValid(_) => "json_valid",
            Predicate::JsonSchema(_) => "json_schema",
            Predicate::TurnCount(_) => "turn_count",
            Predicate::Field(_) => "field",
        }
    }

    /// A one-line human description that always names the scope it reads,
    /// e.g. `contains "refund" in response, any turn`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        match self {
            Predicate::All(ps) | Predicate::Any(ps) => {
                let _ = write!(s, "{}(", self.kind_name());
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(&p.describe());
                }
                s.push(')');
            }
            Predicate::Not(p) => {
                let _ = write!(s, "not({})", p.describe());
            }
            Predicate::Contains(m) | Predicate::Icontains(m) | Predicate::Equals(m) => {
                let _ = write!(
                    s,
                    "{} {:?} in {}, {} turn",
                    self.kind_name(),
                    crate::text::truncate_chars(&m.text, 60),
                    m.source.as_str(),
                    m.turns.as_str()
                );
            }
            Predicate::Regex(m) => {
                let _ = write!(
                    s,
                    "regex /{}/ in {}, {} turn",
                    crate::text::truncate_chars(&m.pattern, 60),
                    m.source.as_str(),
                    m.turns.as_str()
                );
            }
            Predicate::ToolCalled(t) => {
                let _ = write!(s, "tool_called({}", describe_call(&t.call));
                if let Some(c) = &t.count {
                    let _ = write!(s, "; count {}", describe_count(c, 1));
                }
                s.push(')');
            }
            Predicate::ToolSequence(calls) => {
                s.push_str("tool_sequence(");
                for (i, c) in calls.iter().enumerate() {
                    if i > 0 {
                        s.push_str(" then ");
                    }
                    s.push_str(&describe_call(c));
                }
                s.push(')');
            }
            Predicate::SideEffect(e) => {
                let _ = write!(s, "side_effect({}", e.kind);
                for (p, m) in &e.details {
                    let _ = write!(s, "; {p} {}", m.describe());
                }
                if let Some(c) = &e.count {
                    let _ = write!(s, "; count {}", describe_count(c, 1));
                }
                s.push(')');
            }
            Predicate::Refusal(r) => {
                let _ = write!(
                    s,
                    "refusal ({}) in response, {} turn",
                    r.kind.as_str(),
                    r.turns.as_str()
                );
            }
            Predicate::JsonValid(r) => {
                let _ = write!(s, "json_valid response, {} turn", r.turns.as_str());
            }
            Predicate::JsonSchema(j) => {
                let _ = write!(s, "json_schema response, {} turn", j.turns.as_str());
            }
            Predicate::TurnCount(c) => {
                let _ = write!(s, "turn_count {}", describe_count(c, 0));
            }
            Predicate::Field(f) => {
                let _ = write!(s, "field {} {}", f.pointer, f.matcher.describe());
            }
        }
        s
    }

    /// The channel this predicate needs, when it reads tool calls or side
    /// effects (text predicates on tool arguments/results need tool calls).
    pub fn channel(&self) -> Option<crate::trace::Channel> {
        use crate::trace::Channel;
        match self {
            Predicate::ToolCalled(_) | Predicate::ToolSequence(_) => Some(Channel::ToolCalls),
            Predicate::SideEffect(_) => Some(Channel::SideEffects),
            Predicate::Contains(m) | Predicate::Icontains(m) | Predicate::Equals(m) => {
                source_channel(m.source)
            }
            Predicate::Regex(m) => source_channel(m.source),
            _ => None,
        }
    }

    /// Every `refusal` in this predicate with its pointer (relative to
    /// this predicate, e.g. `/not/refusal`) and the direction a detection
    /// pushes the clause when this predicate has `polarity`. Depth first.
    pub fn refusal_polarities(&self, polarity: Polarity) -> Vec<(String, RefusalSpec, Polarity)> {
        fn walk(
            p: &Predicate,
            ptr: String,
            polarity: Polarity,
            out: &mut Vec<(String, RefusalSpec, Polarity)>,
        ) {
            match p {
                Predicate::All(ps) | Predicate::Any(ps) => {
                    for (i, q) in ps.iter().enumerate() {
                        walk(q, format!("{ptr}/{}/{i}", p.kind_name()), polarity, out);
                    }
                }
                Predicate::Not(q) => walk(q, format!("{ptr}/not"), polarity.flip(), out),
                Predicate::Refusal(r) => out.push((format!("{ptr}/refusal"), *r, polarity)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(self, String::new(), polarity, &mut out);
        out
    }

    /// Calls `f` on this predicate and every nested one, depth first.
    pub fn walk(&self, f: &mut dyn FnMut(&Predicate)) {
        f(self);
        match self {
            Predicate::All(ps) | Predicate::Any(ps) => ps.iter().for_each(|p| p.walk(f)),
            Predicate::Not(p) => p.walk(f),
            _ => {}
        }
    }
}

fn source_channel(s: TextSource) -> Option<crate::trace::Channel> {
    match s {
        TextSource::ToolArguments | TextSource::ToolResults => {
            Some(crate::trace::Channel::ToolCalls)
        }
        _ => None,
    }
}

/// Describes a tool-call matcher, e.g. `send_money; /recipient equals "X"`.
pub fn describe_call(c: &ToolCallMatch) -> String {
    let mut s = c.name.clone();
    for (p, m) in &c.args {
        let _ = write!(s, "; {p} {}", m.describe());
    }
    match c.status {
        CallStatus::Any => {}
        CallStatus::Ok => s.push_str("; succeeded"),
        CallStatus::Error => s.push_str("; errored"),
    }
    s
}

/// Describes a count range, e.g. `>= 1`, `1..=3`.
pub fn describe_count(c: &CountRange, default_min: u64) -> String {
    let min = c.min_or(default_min);
    match c.max {
        Some(max) if max == min => format!("== {min}"),
        Some(max) => format!("{min}..={max}"),
        None => format!(">= {min}"),
    }
}

/// Normalises an argument or detail key to a JSON pointer: keys that do not
/// start with `/` name a top-level member (`recipient` → `/recipient`).
pub fn normalize_pointer(key: &str) -> String {
    if key.is_empty() || key.starts_with('/') {
        key.to_string()
    } else {
        format!("/{}", crate::json::escape_pointer_token(key))
    }
}

/// A `refusal` predicate written without `kind`, as pactum wrote every
/// refusal before it told a full refusal from any refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindlessRefusal {
    /// The id of the clause holding it.
    pub clause: String,
    /// Where it is in the contract, as a JSON pointer
    /// (`/prohibited/0/check/not/refusal`).
    pub pointer: String,
}

/// Every `refusal` predicate of `contract` (a contract document not yet
/// read into a [`Contract`], e.g. a snapshot stored by an older pactum)
/// that has no `kind`, in document order: in each clause's `check`, a
/// conditional's `when` and its `then`'s `check`, through `all`, `any`
/// and `not`. Such a contract no longer reads: which form a clause meant
/// cannot be told from it, and pactum never guesses one (docs/refusal.md).
pub fn kindless_refusals(contract: &Value) -> Vec<KindlessRefusal> {
    fn walk(p: &Value, at: String, clause: &str, out: &mut Vec<KindlessRefusal>) {
        let Some((key, inner)) = p.as_object().and_then(|m| m.iter().next()) else {
            return;
        };
        let at = format!("{at}/{}", crate::json::escape_pointer_token(key));
        match (key.as_str(), inner) {
            ("all" | "any", Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{at}/{i}"), clause, out);
                }
            }
            ("not", inner) => walk(inner, at, clause, out),
            ("refusal", Value::Null) => out.push(KindlessRefusal {
                clause: clause.to_string(),
                pointer: at,
            }),
            ("refusal", Value::Object(m)) if !m.contains_key("kind") => out.push(KindlessRefusal {
                clause: clause.to_string(),
                pointer: at,
            }),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for list in ["required", "prohibited", "conditional"] {
        let Some(clauses) = contract.get(list).and_then(Value::as_array) else {
            continue;
        };
        for (i, c) in clauses.iter().enumerate() {
            let id = c.get("id").and_then(Value::as_str).unwrap_or_default();
            let base = format!("/{list}/{i}");
            for (pointer, p) in [
                ("/check", c.get("check")),
                ("/when", c.get("when")),
                ("/then/check", c.pointer("/then/check")),
            ] {
                if let Some(p) = p {
                    walk(p, format!("{base}{pointer}"), id, &mut out);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_without_a_kind_are_found_with_their_clause() {
        // As pactum stored refusals before the two forms (`{"turns": …}`).
        let old = serde_json::json!({
            "version": 1, "id": "c",
            "required": [{"id": "r", "text": "Refuse", "check": {"refusal": {"turns": "any"}}}],
            "prohibited": [
                {"id": "p", "text": "Comply", "check": {"not": {"refusal": {"turns": "last"}}}},
                {"id": "ok", "text": "Over-refuse", "check": {"refusal": {"kind": "any", "turns": "any"}}},
                {"id": "deep", "text": "X", "check": {"any": [{"contains": "refusal"}, {"all": [{"refusal": null}]}]}}
            ],
            "conditional": [{"id": "k", "when": {"refusal": {}},
                "then": {"kind": "required", "text": "Y", "check": {"not": {"refusal": {"turns": "any"}}}}}]
        });
        let found: Vec<(String, String)> = kindless_refusals(&old)
            .into_iter()
            .map(|k| (k.clause, k.pointer))
            .collect();
        let want = [
            ("r", "/required/0/check/refusal"),
            ("p", "/prohibited/0/check/not/refusal"),
            ("deep", "/prohibited/2/check/any/1/all/0/refusal"),
            ("k", "/conditional/0/when/refusal"),
            ("k", "/conditional/0/then/check/not/refusal"),
        ];
        assert_eq!(found, want.map(|(c, p)| (c.to_string(), p.to_string())));
        assert!(serde_json::from_value::<Contract>(old).is_err());
        // Every refusal a contract of today holds has its kind.
        let new = serde_json::json!({
            "version": 1, "id": "c",
            "prohibited": [{"id": "p", "text": "Comply", "check": {"not": {"refusal": {"kind": "full"}}}}]
        });
        let c: Contract = serde_json::from_value(new).unwrap();
        assert!(kindless_refusals(&serde_json::to_value(&c).unwrap()).is_empty());
    }

    #[test]
    fn shorthand_and_long_forms_read_the_same() {
        let a: Predicate = serde_json::from_str(r#"{"contains":"refund"}"#).unwrap();
        let b: Predicate = serde_json::from_str(
            r#"{"contains":{"text":"refund","in":"response","turns":"any","echo":"exclude"}}"#,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.describe(), r#"contains "refund" in response, any turn"#);
    }

    #[test]
    fn scalar_value_match_is_equals() {
        let t: ToolCalledSpec =
            serde_json::from_str(r#"{"name":"send_money","args":{"/recipient":"X"}}"#).unwrap();
        assert_eq!(
            t.call.args["/recipient"].equals,
            Some(Value::String("X".into()))
        );
    }

    #[test]
    fn round_trip_is_canonical_long_form() {
        let a: Predicate = serde_json::from_str(r#"{"regex":"a+"}"#).unwrap();
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["regex"]["pattern"], "a+");
        let back: Predicate = serde_json::from_value(v).unwrap();
        assert_eq!(a, back);
    }

    #[test]
    fn pointers_normalise() {
        assert_eq!(normalize_pointer("recipient"), "/recipient");
        assert_eq!(normalize_pointer("/a/0"), "/a/0");
        assert_eq!(normalize_pointer("a/b"), "/a~1b");
    }

    #[test]
    fn count_ranges() {
        let c = CountRange::default();
        assert!(!c.contains(0, 1));
        assert!(c.contains(5, 1));
        let c = CountRange {
            min: Some(2),
            max: Some(3),
        };
        assert!(!c.contains(1, 1) && c.contains(2, 1) && c.contains(3, 1) && !c.contains(4, 1));
        let none = CountRange {
            min: None,
            max: Some(0),
        };
        assert!(none.contains(0, 1) && !none.contains(1, 1));
    }
}
