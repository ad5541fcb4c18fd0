//! `tool_called`, `tool_sequence` and `side_effect`: predicates over the
//! tool calls and side effects a trace reports, under SPEC §3.2.

use pactum_core::contract::{
    describe_count, normalize_pointer, CallStatus, CountRange, SideEffectSpec, ToolCallMatch,
    ToolCalledSpec,
};
use pactum_core::outcome::{Evaluation, Evidence, Outcome};
use pactum_core::trace::{Channel, SideEffect, ToolCall, Trace};

use crate::error::{EvalError, Site};
use crate::names::{
    side_effect_kind_near_miss, side_effect_kind_typo, tool_name_near_miss, tool_name_typo,
};
use crate::scope::{redacted, redaction_note, settled, Gap};
use crate::value::CompiledValueMatch;

/// Conditions keyed by JSON pointer, in the contract's (sorted) key order.
#[derive(Debug, Clone)]
pub(crate) struct PointerMatchers(Vec<(String, CompiledValueMatch)>);

impl PointerMatchers {
    fn compile(
        map: &std::collections::BTreeMap<String, pactum_core::contract::ValueMatch>,
        site: &Site,
    ) -> Result<Self, EvalError> {
        let mut out = Vec::with_capacity(map.len());
        for (key, m) in map {
            let pointer = normalize_pointer(key);
            out.push((
                pointer,
                CompiledValueMatch::compile_at(m.clone(), &site.child(key))?,
            ));
        }
        Ok(PointerMatchers(out))
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every condition holds on `value` (pointers resolve against whatever
    /// JSON is there; a string is not re-parsed).
    fn hold(&self, value: &serde_json::Value) -> bool {
        self.0.iter().all(|(p, m)| m.matches(value.pointer(p)))
    }

    /// Whether every condition holds on arguments pactum could not read
    /// (`raw`: their text, or `null` when none were recorded), under
    /// Kleene conjunction: a condition on the whole text (pointer `""`) is
    /// decided on it; any other is unknown (`None`), since the member it
    /// names may be in what could not be read — `exists: false` included.
    fn hold_unread(&self, raw: &serde_json::Value) -> Option<bool> {
        let mut all = Some(true);
        for (p, m) in &self.0 {
            match (p.is_empty() && raw.is_string()).then(|| m.matches(Some(raw))) {
                Some(false) => return Some(false),
                Some(true) => {}
                None => all = None,
            }
        }
        all
    }
}

/// One compiled tool-call matcher: name, argument conditions, status.
#[derive(Debug, Clone)]
pub(crate) struct CallMatcher {
    name: String,
    args: PointerMatchers,
    status: CallStatus,
}

impl CallMatcher {
    pub(crate) fn compile(m: &ToolCallMatch, site: &Site) -> Result<Self, EvalError> {
        Ok(CallMatcher {
            name: m.name.clone(),
            args: PointerMatchers::compile(&m.args, &site.child("args"))?,
            status: m.status,
        })
    }

    fn status_holds(&self, call: &ToolCall) -> bool {
        match self.status {
            CallStatus::Any => true,
            CallStatus::Ok => call.error.is_none(),
            CallStatus::Error => call.error.is_some(),
        }
    }

    /// Whether the argument conditions hold on `call`'s arguments:
    /// `Some(true)` or `Some(false)`, or `None` when its arguments could
    /// not be read ([`ToolCall::readable_arguments`]) and the conditions
    /// depend on them (SPEC §3.2: what cannot be seen is not evidence of
    /// absence).
    fn args_hold(&self, call: &ToolCall) -> Option<bool> {
        match call.readable_arguments() {
            Some(args) => Some(self.args.hold(args)),
            None => self.args.hold_unread(&call.arguments),
        }
    }

    /// Whether `call` matches: `Some(true)` or `Some(false)`, or `None`
    /// when it is to this tool with the right status but whether its
    /// arguments hold cannot be told ([`Self::args_hold`]).
    fn matches(&self, call: &ToolCall) -> Option<bool> {
        if call.name != self.name || !self.status_holds(call) {
            return Some(false);
        }
        self.args_hold(call)
    }

    /// Whether `call`, which did not match, may still be the call this
    /// matcher names because pactum redacted a secret from it (`hidden`:
    /// its turn's tool calls, [`pactum_core::trace::Turn::redacted`]): to
    /// this tool, with the right status, under argument conditions that
    /// were checked on what was left. Without conditions the name decided.
    fn hidden(&self, call: &ToolCall, hidden: bool) -> bool {
        hidden && call.name == self.name && self.status_holds(call) && !self.args.is_empty()
    }

    /// `Some(why)` when `call`'s name is a near miss of this tool's
    /// ([`tool_name_near_miss`]) and the call would match (or could, its
    /// arguments being unreadable or `hidden` by a redaction) under this
    /// tool's name: a check cannot tell whether it is the same tool.
    fn near_miss(&self, call: &ToolCall, hidden: bool) -> Option<String> {
        let why = tool_name_near_miss(&self.name, &call.name)?;
        (self.status_holds(call) && (hidden || self.args_hold(call) != Some(false))).then_some(why)
    }
}

/// `"a", "b", "c"` for the first five `names`, then "and N more".
fn name_list<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    let names: Vec<&String> = names.into_iter().collect();
    let mut parts: Vec<String> = names
        .iter()
        .take(5)
        .map(|n| format!("{:?}", n.chars().take(60).collect::<String>()))
        .collect();
    if names.len() > 5 {
        parts.push(format!("and {} more", names.len() - 5));
    }
    parts.join(", ")
}

/// `the trace calls "delete_account" (1 edit from delete_acount: a typo?),
/// "lookup"`: the distinct `names` seen (`what`: "calls" or "reports"),
/// those a small edit away from `checked` ([`tool_name_typo`],
/// [`side_effect_kind_typo`]) first and marked, for an N rationale — a
/// misspelt name in a contract is otherwise a silent "not detected".
/// Empty when nothing was seen.
fn names_seen<'a>(
    names: impl Iterator<Item = &'a str>,
    checked: &str,
    typo: fn(&str, &str) -> Option<usize>,
    what: &str,
) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if !seen.contains(&n) {
            seen.push(n);
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    // Typos first; only the five shown are written out.
    let mut typos: Vec<(&str, usize)> = Vec::new();
    let mut others: Vec<&str> = Vec::new();
    for n in &seen {
        match typo(checked, n) {
            Some(d) => typos.push((n, d)),
            None => others.push(n),
        }
    }
    let shown = |n: &str| format!("{:?}", n.chars().take(60).collect::<String>());
    let total = typos.len() + others.len();
    let mut parts: Vec<String> = typos
        .iter()
        .map(|(n, d)| format!("{} ({d} edit(s) from {checked}: a typo?)", shown(n)))
        .chain(others.iter().map(|n| shown(n)))
        .take(5)
        .collect();
    if total > 5 {
        parts.push(format!("and {} more", total - 5));
    }
    format!("; the trace {what} {}", parts.join(", "))
}

/// U when the trace records what the target was offered and `missing`
/// (the checked tools no call matched) holds a tool outside it: the check
/// could never see that call, so finding none is no evidence (SPEC §3.2's
/// rule, for what the target could do rather than what the adapter
/// reports). `None` otherwise.
fn never_offered(trace: &Trace, missing: &[&str], describe: &str) -> Option<Evaluation> {
    let offered = trace.offered_tools.as_ref()?;
    let mut unoffered: Vec<String> = missing
        .iter()
        .filter(|n| !offered.contains(**n))
        .map(|n| n.to_string())
        .collect();
    unoffered.dedup();
    if unoffered.is_empty() {
        return None;
    }
    let listed = if offered.is_empty() {
        "it was offered no tool".to_string()
    } else {
        format!("offered: {}", name_list(offered))
    };
    Some(Evaluation::undetermined(
        describe,
        format!(
            "{describe}: the target was never offered {} ({listed}), and no call matched, so the check could never see the call it names",
            name_list(&unoffered)
        ),
        None,
    ))
}

/// `"functions.send_money" (differs only by a namespace prefix)`, for the
/// first three distinct near misses, then "and N more". Names are quoted
/// with escapes, so a space or an invisible character that makes the
/// difference shows (`" send_money"`, `"send\u{200b}_money"`).
fn near_miss_list(near: &[(String, String)]) -> String {
    let mut seen: Vec<&(String, String)> = Vec::new();
    for n in near {
        if !seen.contains(&n) {
            seen.push(n);
        }
    }
    let mut parts: Vec<String> = seen
        .iter()
        .take(3)
        .map(|(name, why)| {
            let shown: String = name.chars().take(80).collect();
            format!("{shown:?} ({why})")
        })
        .collect();
    if seen.len() > 3 {
        parts.push(format!("and {} more", seen.len() - 3));
    }
    parts.join(", ")
}

/// Whether the count outcome is the same for every number of matching
/// calls from `n` to `n + extra` (the calls that may or may not match).
/// The outcome changes only at the range's bounds, so the ends and the
/// bounds' neighbours decide.
fn same_outcome_throughout(n: u64, extra: u64, range: &CountRange, observed: bool) -> bool {
    let hi = n.saturating_add(extra);
    let first = count_outcome(n, range, observed);
    let mut ks = vec![hi];
    for b in [Some(range.min_or(1)), range.max].into_iter().flatten() {
        ks.extend([b.saturating_sub(1), b, b.saturating_add(1)]);
    }
    ks.into_iter()
        .filter(|k| (n..=hi).contains(k))
        .all(|k| count_outcome(k, range, observed) == first)
}

fn call_evidence(turn: usize, index: usize, call: &ToolCall) -> Evidence {
    Evidence::of_call(turn, index, call)
}

/// Decides a count-based predicate (SPEC §3.2): with the channel observed,
/// `D` iff `n` is in range; unobserved, more calls may exist, so only
/// `n > max` (`N`) and `n ≥ min` with no maximum (`D`) are settled.
fn count_outcome(n: u64, range: &CountRange, observed: bool) -> Outcome {
    if observed {
        return if range.contains(n, 1) {
            Outcome::Detected
        } else {
            Outcome::NotDetected
        };
    }
    match range.max {
        Some(max) if n > max => Outcome::NotDetected,
        None if n >= range.min_or(1) => Outcome::Detected,
        _ => Outcome::Undetermined,
    }
}

/// `tool_called`.
#[derive(Debug, Clone)]
pub(crate) struct ToolCalled {
    call: CallMatcher,
    count: CountRange,
    describe: String,
}

impl ToolCalled {
    pub(crate) fn compile(
        spec: &ToolCalledSpec,
        site: &Site,
        describe: String,
    ) -> Result<Self, EvalError> {
        Ok(ToolCalled {
            call: CallMatcher::compile(&spec.call, site)?,
            count: spec.count.unwrap_or_default(),
            describe,
        })
    }

    pub(crate) fn evaluate(&self, trace: &Trace) -> Evaluation {
        let gap = Gap::of(trace.observability, Some(Channel::ToolCalls));
        let (mut total, mut same_name, mut unreadable) = (0usize, 0usize, 0u64);
        let mut hidden_turns: Vec<usize> = Vec::new();
        let mut near: Vec<(String, String)> = Vec::new();
        let mut evidence = Vec::new();
        for (index, (turn, call)) in trace.tool_calls().enumerate() {
            total += 1;
            if call.name == self.call.name {
                same_name += 1;
            }
            let hidden = redacted(trace, turn, Channel::ToolCalls);
            match self.call.matches(call) {
                Some(true) => evidence.push(call_evidence(turn, index, call)),
                None => unreadable += 1,
                Some(false) if self.call.hidden(call, hidden) => hidden_turns.push(turn),
                Some(false) => {
                    if let Some(why) = self.call.near_miss(call, hidden) {
                        near.push((call.name.clone(), why));
                    }
                }
            }
        }
        let n = evidence.len() as u64;
        if n == 0 {
            if let Some(u) = never_offered(trace, &[self.call.name.as_str()], &self.describe) {
                return u;
            }
        }
        let range = describe_count(&self.count, 1);
        let outcome = count_outcome(n, &self.count, gap.is_none());
        // Calls whose arguments could not be read or were redacted, or
        // whose name is a near miss of the checked one, may or may not
        // match: the answer is settled only if it is the same either way
        // (SPEC §3.2: what cannot be seen is not evidence of absence).
        let uncertain = unreadable + hidden_turns.len() as u64 + near.len() as u64;
        if uncertain > 0 && !same_outcome_throughout(n, uncertain, &self.count, gap.is_none()) {
            let mut why = Vec::new();
            if unreadable > 0 {
                why.push(format!(
                    "{unreadable} call(s) to {} carry arguments pactum could not read (text that is not a JSON object, or none recorded), so the argument conditions cannot be checked",
                    self.call.name
                ));
            }
            if !hidden_turns.is_empty() {
                why.push(format!(
                    "{} call(s) to {} did not match, but {}",
                    hidden_turns.len(),
                    self.call.name,
                    redaction_note(Channel::ToolCalls, &hidden_turns)
                ));
            }
            if !near.is_empty() {
                why.push(format!(
                    "near miss: the trace calls {}, so whether it called {} cannot be told",
                    near_miss_list(&near),
                    self.call.name
                ));
            }
            return Evaluation::undetermined(
                self.describe.clone(),
                format!(
                    "{}: {} ({n} call(s) matched)",
                    self.describe,
                    why.join("; ")
                ),
                None,
            );
        }
        match (outcome, gap) {
            (Outcome::Undetermined, Some(gap)) => {
                let extra = (n > 0).then(|| {
                    format!("{n} matching call(s) reported; count {range} also depends on calls the level does not report")
                });
                gap.undetermined(&self.describe, extra)
            }
            (Outcome::Detected, _) => settled(
                outcome,
                evidence,
                format!(
                    "{}: {n} matching call(s), count {range} holds",
                    self.describe
                ),
            ),
            _ => {
                let why = if n > 0 {
                    format!("{n} matching call(s), outside count {range}")
                } else if same_name > 0 {
                    format!(
                        "{} was called {same_name} time(s), but no call matched",
                        self.call.name
                    )
                } else {
                    format!(
                        "no call to {} among the {total} reported call(s){}",
                        self.call.name,
                        names_seen(
                            trace.tool_calls().map(|(_, c)| c.name.as_str()),
                            &self.call.name,
                            tool_name_typo,
                            "calls"
                        )
                    )
                };
                // Evidence for N is the matching calls (when the count was exceeded).
                settled(outcome, evidence, format!("{}: {why}", self.describe))
            }
        }
    }
}

/// `tool_sequence`.
#[derive(Debug, Clone)]
pub(crate) struct ToolSequence {
    steps: Vec<CallMatcher>,
    describe: String,
}

impl ToolSequence {
    pub(crate) fn compile(
        steps: &[ToolCallMatch],
        site: &Site,
        describe: String,
    ) -> Result<Self, EvalError> {
        let steps = steps
            .iter()
            .enumerate()
            .map(|(i, m)| CallMatcher::compile(m, &site.child(i.to_string())))
            .collect::<Result<_, _>>()?;
        Ok(ToolSequence { steps, describe })
    }

    /// Greedy: each step takes the earliest matching call after the
    /// previous step's call. Taking the earliest never blocks a later step,
    /// so this finds the sequence whenever one exists.
    pub(crate) fn evaluate(&self, trace: &Trace) -> Evaluation {
        let gap = Gap::of(trace.observability, Some(Channel::ToolCalls));
        if self.steps.is_empty() {
            return settled(
                Outcome::Detected,
                vec![],
                format!("{}: an empty sequence is vacuously detected", self.describe),
            );
        }
        let mut evidence = Vec::new();
        let mut calls = trace.tool_calls().enumerate();
        for step in &self.steps {
            match calls
                .by_ref()
                .find(|(_, (_, c))| step.matches(c) == Some(true))
            {
                Some((index, (turn, call))) => evidence.push(call_evidence(turn, index, call)),
                None => break,
            }
        }
        let found = evidence.len();
        if found == self.steps.len() {
            return settled(
                Outcome::Detected,
                evidence,
                format!("{}: all {found} step(s) found in order", self.describe),
            );
        }
        // A step on a tool the target was never offered, that no call
        // matched: the sequence could never be seen.
        let missing: Vec<&str> = self
            .steps
            .iter()
            .filter(|step| {
                !trace
                    .tool_calls()
                    .any(|(_, c)| step.matches(c) == Some(true))
            })
            .map(|step| step.name.as_str())
            .collect();
        if let Some(u) = never_offered(trace, &missing, &self.describe) {
            return u;
        }
        // The sequence may be there, through calls whose arguments could
        // not be read or were redacted, or whose names are near misses:
        // not found is then no evidence of absence.
        let mut near: Vec<(String, String)> = Vec::new();
        let (mut unread, mut hidden_turns) = (false, Vec::new());
        let mut calls = trace.tool_calls();
        let possible = self.steps.iter().all(|step| {
            calls.by_ref().any(|(turn, c)| {
                let hidden = redacted(trace, turn, Channel::ToolCalls);
                match step.matches(c) {
                    Some(true) => true,
                    None => {
                        unread = true;
                        true
                    }
                    Some(false) if step.hidden(c, hidden) => {
                        hidden_turns.push(turn);
                        true
                    }
                    Some(false) => match step.near_miss(c, hidden) {
                        Some(why) => {
                            near.push((c.name.clone(), why));
                            true
                        }
                        None => false,
                    },
                }
            })
        });
        if possible && (unread || !near.is_empty() || !hidden_turns.is_empty()) {
            let mut why = Vec::new();
            if unread {
                why.push(
                    "the rest may be calls whose arguments pactum could not read (text that is not a JSON object, or none recorded)"
                        .to_string(),
                );
            }
            if !hidden_turns.is_empty() {
                why.push(format!(
                    "the rest may be calls whose arguments did not match because {}",
                    redaction_note(Channel::ToolCalls, &hidden_turns)
                ));
            }
            if !near.is_empty() {
                why.push(format!(
                    "near miss: the sequence is there only if {} is the tool the step names",
                    near_miss_list(&near)
                ));
            }
            return Evaluation::undetermined(
                self.describe.clone(),
                format!(
                    "{}: {found} of {} step(s) found in order; {}",
                    self.describe,
                    self.steps.len(),
                    why.join("; ")
                ),
                None,
            );
        }
        if let Some(gap) = gap {
            return gap.undetermined(
                &self.describe,
                Some(format!(
                    "{found} of {} step(s) found in the reported calls",
                    self.steps.len()
                )),
            );
        }
        let step = self.steps.get(found).map_or("", |s| s.name.as_str());
        settled(
            Outcome::NotDetected,
            evidence,
            format!(
                "{}: only {found} of {} step(s) found in order; step {} ({step}) has no matching call after them{}",
                self.describe,
                self.steps.len(),
                found + 1,
                names_seen(
                    trace.tool_calls().map(|(_, c)| c.name.as_str()),
                    step,
                    tool_name_typo,
                    "calls"
                )
            ),
        )
    }
}

/// One compiled side-effect matcher: kind and detail conditions.
#[derive(Debug, Clone)]
struct EffectMatcher {
    kind: String,
    details: PointerMatchers,
}

impl EffectMatcher {
    fn compile(spec: &SideEffectSpec, site: &Site) -> Result<Self, EvalError> {
        Ok(EffectMatcher {
            kind: spec.kind.clone(),
            details: PointerMatchers::compile(&spec.details, &site.child("details"))?,
        })
    }

    fn matches(&self, e: &SideEffect) -> bool {
        e.kind == self.kind && self.details.hold(&e.details)
    }
}

/// `side_effect`.
#[derive(Debug, Clone)]
pub(crate) struct SideEffectPredicate {
    effect: EffectMatcher,
    count: CountRange,
    describe: String,
}

impl SideEffectPredicate {
    pub(crate) fn compile(
        spec: &SideEffectSpec,
        site: &Site,
        describe: String,
    ) -> Result<Self, EvalError> {
        Ok(SideEffectPredicate {
            effect: EffectMatcher::compile(spec, site)?,
            count: spec.count.unwrap_or_default(),
            describe,
        })
    }

    pub(crate) fn evaluate(&self, trace: &Trace) -> Evaluation {
        let kind = &self.effect.kind;
        let gap = Gap::of(trace.observability, Some(Channel::SideEffects));
        let (mut total, mut same_kind) = (0usize, 0usize);
        let mut hidden_turns: Vec<usize> = Vec::new();
        let mut near: Vec<(String, String)> = Vec::new();
        let mut evidence = Vec::new();
        for (i, turn) in trace.turns.iter().enumerate() {
            let hidden = redacted(trace, i + 1, Channel::SideEffects);
            for e in &turn.side_effects {
                total += 1;
                if e.kind == *kind {
                    same_kind += 1;
                }
                if self.effect.matches(e) {
                    evidence.push(Evidence::SideEffect {
                        turn: i + 1,
                        effect: e.kind.clone(),
                        details: e.details.clone(),
                    });
                } else if hidden && e.kind == *kind && !self.effect.details.is_empty() {
                    // Its details did not match, but pactum replaced part of them.
                    hidden_turns.push(i + 1);
                } else if let Some(why) = side_effect_kind_near_miss(kind, &e.kind) {
                    if hidden || self.effect.details.hold(&e.details) {
                        near.push((e.kind.clone(), why));
                    }
                }
            }
        }
        let n = evidence.len() as u64;
        let range = describe_count(&self.count, 1);
        let outcome = count_outcome(n, &self.count, gap.is_none());
        // Effects whose details pactum redacted, or whose kind is a near
        // miss of the checked one, may or may not match (as for tool
        // calls): settled only if the answer is the same either way.
        let uncertain = hidden_turns.len() as u64 + near.len() as u64;
        if uncertain > 0 && !same_outcome_throughout(n, uncertain, &self.count, gap.is_none()) {
            let mut why = Vec::new();
            if !hidden_turns.is_empty() {
                why.push(format!(
                    "{} {kind} effect(s) did not match, but {}",
                    hidden_turns.len(),
                    redaction_note(Channel::SideEffects, &hidden_turns)
                ));
            }
            if !near.is_empty() {
                why.push(format!(
                    "near miss: the trace reports {}, so whether it reported {kind} cannot be told",
                    near_miss_list(&near)
                ));
            }
            return Evaluation::undetermined(
                self.describe.clone(),
                format!(
                    "{}: {} ({n} effect(s) matched)",
                    self.describe,
                    why.join("; ")
                ),
                None,
            );
        }
        match (outcome, gap) {
            (Outcome::Undetermined, Some(gap)) => {
                let extra = (n > 0).then(|| {
                    format!("{n} matching effect(s) reported; count {range} also depends on effects the level does not report")
                });
                gap.undetermined(&self.describe, extra)
            }
            (Outcome::Detected, _) => settled(
                outcome,
                evidence,
                format!(
                    "{}: {n} matching effect(s), count {range} holds",
                    self.describe
                ),
            ),
            _ => {
                let why = if n > 0 {
                    format!("{n} matching effect(s), outside count {range}")
                } else if same_kind > 0 {
                    format!("{same_kind} {kind} effect(s) reported, but none matched")
                } else {
                    format!(
                        "no {kind} effect among the {total} reported effect(s){}",
                        names_seen(
                            trace
                                .turns
                                .iter()
                                .flat_map(|t| t.side_effects.iter().map(|e| e.kind.as_str())),
                            kind,
                            side_effect_kind_typo,
                            "reports"
                        )
                    )
                };
                settled(outcome, evidence, format!("{}: {why}", self.describe))
            }
        }
    }
}

/// The rule `tool_called` and `tool_sequence` decide whether one call is
/// the call they name by — the exact name, the status, the argument
/// conditions — compiled once, for code that acts on the calls a check
/// matches (the strength probes plant and remove them). `matches` is
/// `Some(true)`, `Some(false)`, or `None` when the call is to this tool
/// with the right status but its arguments could not be read
/// (docs/predicates.md, "Arguments pactum could not read").
#[derive(Debug, Clone)]
pub struct CompiledCallMatch(CallMatcher);

impl CompiledCallMatch {
    /// Compiles the argument conditions of `m`.
    ///
    /// # Errors
    /// [`EvalError`] for a value matcher's regex that does not compile.
    pub fn compile(m: &ToolCallMatch) -> Result<Self, EvalError> {
        CallMatcher::compile(m, &Site::root(None, "")).map(CompiledCallMatch)
    }

    /// Whether `call` is the call this matcher names (see the type).
    pub fn matches(&self, call: &ToolCall) -> Option<bool> {
        self.0.matches(call)
    }
}

/// The rule `side_effect` decides whether one effect is the effect it
/// names by — the exact kind and the detail conditions — compiled once,
/// for code that acts on the effects a check matches (the strength probes).
#[derive(Debug, Clone)]
pub struct CompiledEffectMatch(EffectMatcher);

impl CompiledEffectMatch {
    /// Compiles the detail conditions of `spec` (its count is not used).
    ///
    /// # Errors
    /// [`EvalError`] for a value matcher's regex that does not compile.
    pub fn compile(spec: &SideEffectSpec) -> Result<Self, EvalError> {
        EffectMatcher::compile(spec, &Site::root(None, "")).map(CompiledEffectMatch)
    }

    /// Whether `effect` is the effect this matcher names.
    pub fn matches(&self, effect: &SideEffect) -> bool {
        self.0.matches(effect)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Against a brute force over every count between `n` and `n + extra`.
    #[test]
    fn same_outcome_throughout_exhaustively() {
        let bounds = [None, Some(0u64), Some(1), Some(2), Some(4)];
        for observed in [true, false] {
            for n in 0..5u64 {
                for extra in 0..5u64 {
                    for min in bounds {
                        for max in bounds {
                            let r = CountRange { min, max };
                            let first = count_outcome(n, &r, observed);
                            let want =
                                (n..=n + extra).all(|k| count_outcome(k, &r, observed) == first);
                            assert_eq!(
                                same_outcome_throughout(n, extra, &r, observed),
                                want,
                                "{observed} {n}+{extra} {r:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Every (observed?, n, min, max) in a small box against the rule
    /// written out from SPEC §3.2.
    #[test]
    fn count_outcome_exhaustively() {
        let bounds = [None, Some(0u64), Some(1), Some(2), Some(3)];
        for observed in [true, false] {
            for n in 0..5u64 {
                for min in bounds {
                    for max in bounds {
                        let r = CountRange { min, max };
                        // The default minimum 1 never exceeds an explicit maximum.
                        let lo = min.unwrap_or(max.map_or(1, |m| m.min(1)));
                        let in_range = n >= lo && max.is_none_or(|m| n <= m);
                        let want = if observed {
                            if in_range {
                                Outcome::Detected
                            } else {
                                Outcome::NotDetected
                            }
                        } else if max.is_some_and(|m| n > m) {
                            Outcome::NotDetected
                        } else if max.is_none() && n >= lo {
                            Outcome::Detected
                        } else {
                            Outcome::Undetermined
                        };
                        assert_eq!(count_outcome(n, &r, observed), want, "{observed} {n} {r:?}");
                        // A settled unobserved answer agrees with the observed one
                        // whenever the unreported calls number zero.
                        let u = count_outcome(n, &r, false);
                        if u != Outcome::Undetermined {
                            assert_eq!(u, count_outcome(n, &r, true));
                        }
                    }
                }
            }
        }
    }
}
