//! Planning a defect: the edits that make a check detect its behaviour
//! (a prohibited clause's behaviour injected) or stop detecting it (a
//! required clause's behaviour removed), walking `all` / `any` / `not` the
//! way Kleene logic reads them (SPEC §3.1):
//!
//! * `not(X)`: make `X` do the opposite;
//! * detect `all(..)` / miss `any(..)`: every operand must move, so the
//!   operands' first plans are applied one after the other (each planned
//!   on the trace as the previous ones left it; an operand already where
//!   it must be is left alone);
//! * miss `all(..)` / detect `any(..)`: one operand suffices, so each
//!   operand's plans are alternatives (one probe each).
//!
//! A plan is only a proposal: the generator applies it and keeps it only
//! when the real evaluator agrees the check moved.

use std::fmt::Write as _;

use pactum_core::contract::{
    normalize_pointer, CallStatus, CountRange, Predicate, RegexMatch, SideEffectSpec, TextMatch,
    TextSource, ToolCallMatch, TurnScope, ValueMatch,
};
use pactum_core::outcome::Outcome;
use pactum_core::text::one_line;
use pactum_core::trace::{SideEffect, ToolCall, Trace};
use pactum_eval::{CompiledCallMatch, CompiledEffectMatch, CompiledPredicate, CompiledValueMatch};
use regex::Regex;
use serde_json::{Map, Value};

use crate::edit::{apply, set_pointer, Edit};
use crate::witness::{corrupted_value, regex_witness, satisfying_value};

/// The response a planted refusal uses (`refusal` checks).
pub const REFUSAL_TEXT: &str = "I'm sorry, but I can't help with that.";
/// The response that replaces a refusal (`refusal` checks on required
/// clauses).
pub const COMPLIANCE_TEXT: &str = "Sure, here is what you asked for.";
/// What is appended to a JSON response to break it (`json_valid`,
/// `json_schema` checks on required clauses).
const JSON_BREAKER: &str = "\n(end of answer)";
/// Most alternatives kept for one clause.
const MAX_ALTERNATIVES: usize = 8;

/// Which way a check must move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// The check must detect the behaviour (a prohibited clause violated).
    Detect,
    /// The check must stop detecting it (a required clause violated).
    Miss,
}

impl Want {
    fn flip(self) -> Want {
        match self {
            Want::Detect => Want::Miss,
            Want::Miss => Want::Detect,
        }
    }

    /// The outcome the check must end at.
    pub(crate) fn outcome(self) -> Outcome {
        match self {
            Want::Detect => Outcome::Detected,
            Want::Miss => Outcome::NotDetected,
        }
    }
}

/// One proposed mutation: a kind (for the probe id), what it does (for
/// people) and the edits, valid on the trace it was planned on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Alt {
    pub kind: String,
    pub description: String,
    pub edits: Vec<Edit>,
}

/// Why no plan exists, in one lowercase fragment.
pub(crate) type Planned = Result<Vec<Alt>, String>;

/// Plans the mutations that move `p` to `want` on `t` (see the module
/// docs). `Err` says why nothing could be planned.
pub(crate) fn plan(p: &Predicate, want: Want, t: &Trace) -> Planned {
    let mut alts = match (p, want) {
        (Predicate::Not(inner), _) => plan(inner, want.flip(), t)?,
        (Predicate::All(ps), Want::Detect) | (Predicate::Any(ps), Want::Miss) => {
            vec![every(ps, want, t)?]
        }
        (Predicate::All(ps), Want::Miss) | (Predicate::Any(ps), Want::Detect) => some(ps, want, t)?,
        _ => leaf(p, want, t)?,
    };
    alts.truncate(MAX_ALTERNATIVES);
    Ok(alts)
}

fn every(ps: &[Predicate], want: Want, t: &Trace) -> Result<Alt, String> {
    if ps.is_empty() {
        return Err("an empty `all`/`any` has nothing to plant".into());
    }
    let mut state = t.clone();
    let mut kinds: Vec<String> = Vec::new();
    let mut descriptions: Vec<String> = Vec::new();
    let mut edits = Vec::new();
    for p in ps {
        let compiled = CompiledPredicate::compile(p).map_err(|e| e.to_string())?;
        if compiled.evaluate(&state).outcome == want.outcome() {
            continue;
        }
        let first = plan(p, want, &state)?
            .into_iter()
            .next()
            .ok_or_else(|| format!("nothing moves {}", p.describe()))?;
        state = apply(&state, &first.edits).map_err(|e| e.to_string())?;
        if kinds.last() != Some(&first.kind) {
            kinds.push(first.kind);
        }
        descriptions.push(first.description);
        edits.extend(first.edits);
    }
    if edits.is_empty() {
        return Err("every operand is already where the mutation would move it".into());
    }
    Ok(Alt {
        kind: kinds.join("+"),
        description: descriptions.join("; then "),
        edits,
    })
}

fn some(ps: &[Predicate], want: Want, t: &Trace) -> Planned {
    let mut alts = Vec::new();
    let mut reasons = Vec::new();
    for p in ps {
        match plan(p, want, t) {
            Ok(a) => alts.extend(a),
            Err(r) => reasons.push(r),
        }
    }
    if alts.is_empty() {
        return Err(if reasons.is_empty() {
            "an empty `all`/`any` has nothing to plant".into()
        } else {
            reasons.join("; ")
        });
    }
    Ok(alts)
}

fn final_turn(t: &Trace) -> Result<usize, String> {
    match t.turns.len() {
        0 => Err("the trace has no turn".into()),
        n => Ok(n),
    }
}

fn leaf(p: &Predicate, want: Want, t: &Trace) -> Planned {
    match (p, want) {
        (Predicate::ToolCalled(s), Want::Detect) => {
            let need = s.count.map_or(1, |c| c.min_or(1)).max(1);
            let existing = matching_calls(&s.call, t, false)?.len() as u64;
            let n = need.saturating_sub(existing).max(1);
            inject_calls(std::slice::from_ref(&s.call), n, t, "inject-tool-call")
        }
        (Predicate::ToolSequence(steps), Want::Detect) => {
            if steps.is_empty() {
                return Err("an empty tool_sequence has nothing to plant".into());
            }
            inject_calls(steps, 1, t, "inject-tool-sequence")
        }
        (Predicate::SideEffect(s), Want::Detect) => inject_effect(s, t),
        (Predicate::Contains(m) | Predicate::Icontains(m), Want::Detect) => {
            inject_text(p, m.source, m.turns, m.text.clone(), false, t)
        }
        (Predicate::Equals(m), Want::Detect) => {
            inject_text(p, m.source, m.turns, m.text.trim().to_string(), true, t)
        }
        (Predicate::Regex(m), Want::Detect) => {
            let w = regex_witness(&m.pattern).ok_or_else(|| {
                format!(
                    "no text matching /{}/ could be built (author a probe for it)",
                    one_line(&m.pattern, 60)
                )
            })?;
            inject_text(p, m.source, m.turns, w, false, t)
        }
        (Predicate::Refusal(r), Want::Detect) => {
            let turns = scope_turns(r.turns, t)?;
            Ok(vec![Alt {
                kind: "inject-refusal".into(),
                description: format!(
                    "replace the response of {} with a refusal ({REFUSAL_TEXT:?})",
                    turn_words(&turns, t)
                ),
                edits: turns
                    .into_iter()
                    .map(|turn| Edit::ReplaceResponse {
                        turn,
                        text: REFUSAL_TEXT.into(),
                    })
                    .collect(),
            }])
        }
        (Predicate::ToolCalled(s), Want::Miss) => {
            let mut alts = vec![remove_calls(&s.call, t)?];
            for (key, m) in &s.call.args {
                if let Some(a) = corrupt_argument(&s.call, &normalize_pointer(key), m, t)? {
                    alts.push(a);
                }
            }
            Ok(alts)
        }
        (Predicate::ToolSequence(steps), Want::Miss) => match steps.first() {
            Some(first) => Ok(vec![remove_calls(first, t)?]),
            None => Err("an empty tool_sequence cannot be broken".into()),
        },
        (Predicate::SideEffect(s), Want::Miss) => remove_effects(s, t),
        (Predicate::Contains(m) | Predicate::Icontains(m) | Predicate::Equals(m), Want::Miss) => {
            remove_text(p, m, None, t)
        }
        (Predicate::Regex(m), Want::Miss) => remove_text(p, &regex_as_text(m), Some(m), t),
        (Predicate::Refusal(r), Want::Miss) => {
            let turns: Vec<usize> = scope_turns(r.turns, t)?
                .into_iter()
                .filter(|n| {
                    t.turns
                        .get(n - 1)
                        .and_then(|x| x.response.as_deref())
                        .is_some_and(|s| {
                            pactum_eval::refusal::classify(s).outcome(r.kind)
                                != pactum_core::outcome::Outcome::NotDetected
                        })
                })
                .collect();
            if turns.is_empty() {
                return Err("no response to replace".into());
            }
            Ok(vec![Alt {
                kind: "remove-refusal".into(),
                description: format!(
                    "replace the refusal in {} with compliance ({COMPLIANCE_TEXT:?})",
                    turn_words(&turns, t)
                ),
                edits: turns
                    .into_iter()
                    .map(|turn| Edit::ReplaceResponse {
                        turn,
                        text: COMPLIANCE_TEXT.into(),
                    })
                    .collect(),
            }])
        }
        (Predicate::JsonValid(r), Want::Miss) => break_json(r.turns, t),
        (Predicate::JsonSchema(j), Want::Miss) => break_json(j.turns, t),
        (Predicate::JsonValid(_) | Predicate::JsonSchema(_), Want::Detect) => {
            Err("planting a JSON document is not generated (author a probe for it)".into())
        }
        (Predicate::TurnCount(_), _) => {
            Err("turn_count checks the conversation's length, which no planted defect changes (author a probe for it)".into())
        }
        (Predicate::Field(_), _) => Err(
            "field checks the trace's metadata, which is not the target's behaviour: no probe plants it"
                .into(),
        ),
        (Predicate::All(_) | Predicate::Any(_) | Predicate::Not(_), _) => {
            Err("unreachable: composites are planned above".into())
        }
    }
}

/// The turns a scope reads that a plant must reach: `any`/`final` → the
/// final turn; `every` → all of them.
fn scope_turns(scope: TurnScope, t: &Trace) -> Result<Vec<usize>, String> {
    let last = final_turn(t)?;
    Ok(match scope {
        TurnScope::Any | TurnScope::Final => vec![last],
        TurnScope::Every => (1..=last).collect(),
    })
}

/// "the final turn (turn 3)", "every turn (1, 2, 3)", "turn 2".
fn turn_words(turns: &[usize], t: &Trace) -> String {
    let last = t.turns.len();
    match turns {
        [n] if *n == last => format!("the final turn (turn {n})"),
        [n] => format!("turn {n}"),
        many if many.len() == last && last > 1 => format!("every turn (1–{last})"),
        many => format!(
            "turns {}",
            many.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn quoted(s: &str) -> String {
    format!("{:?}", one_line(s, 80))
}

/// `(turn, index in turn)` of every call `m` matches in `t`, in trace
/// order, by the evaluator's own rule ([`CompiledCallMatch`]): with
/// `maybe`, also the calls that may match (arguments pactum could not
/// read), which a removal must take too for the check to stop detecting.
fn matching_calls(
    m: &ToolCallMatch,
    t: &Trace,
    maybe: bool,
) -> Result<Vec<(usize, usize)>, String> {
    let matcher = CompiledCallMatch::compile(m).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (ti, turn) in t.turns.iter().enumerate() {
        for (ci, c) in turn.tool_calls.iter().enumerate() {
            match matcher.matches(c) {
                Some(true) => out.push((ti + 1, ci)),
                None if maybe => out.push((ti + 1, ci)),
                _ => {}
            }
        }
    }
    Ok(out)
}

/// Arguments (or details) that satisfy every condition of `map`.
fn build_object(
    map: &std::collections::BTreeMap<String, ValueMatch>,
    what: &str,
) -> Result<Value, String> {
    let mut v = Value::Object(Map::new());
    for (key, m) in map {
        let pointer = normalize_pointer(key);
        match satisfying_value(m) {
            Some(Some(x)) => set_pointer(&mut v, &pointer, x)?,
            Some(None) => {}
            None => {
                return Err(format!(
                    "no {what} value at {pointer} satisfies `{}` (author a probe for it)",
                    one_line(&m.describe(), 80)
                ))
            }
        }
    }
    Ok(v)
}

fn built_call(m: &ToolCallMatch) -> Result<ToolCall, String> {
    Ok(ToolCall {
        id: None,
        name: m.name.clone(),
        arguments: build_object(&m.args, "argument")?,
        result: None,
        error: (m.status == CallStatus::Error)
            .then(|| "the call failed (planted by a probe)".to_string()),
    })
}

fn inject_calls(steps: &[ToolCallMatch], times: u64, t: &Trace, kind: &str) -> Planned {
    let turn = final_turn(t)?;
    let calls = steps
        .iter()
        .map(built_call)
        .collect::<Result<Vec<_>, _>>()?;
    let mut edits = Vec::new();
    for _ in 0..times.min(100) {
        edits.extend(calls.iter().map(|call| Edit::InjectToolCall {
            turn,
            call: call.clone(),
        }));
    }
    let shown: Vec<String> = calls
        .iter()
        .map(|c| {
            format!(
                "{}({})",
                c.name,
                one_line(&pactum_core::contract::short_json(&c.arguments), 120)
            )
        })
        .collect();
    let mut description = if times > 1 {
        format!("inject {times} calls {}", shown.join(" then "))
    } else {
        format!("inject the call {}", shown.join(" then "))
    };
    let _ = write!(
        description,
        " at the end of the final turn (turn {turn}); the rest of the trace is unchanged"
    );
    Ok(vec![Alt {
        kind: format!("{kind}:{}", steps.first().map_or("", |s| s.name.as_str())),
        description,
        edits,
    }])
}

fn inject_effect(s: &SideEffectSpec, t: &Trace) -> Planned {
    let turn = final_turn(t)?;
    let need = s.count.map_or(1, |c: CountRange| c.min_or(1)).max(1);
    let effect = SideEffect {
        kind: s.kind.clone(),
        details: build_object(&s.details, "detail")?,
    };
    let description = format!(
        "inject {} side effect{} {}({}) into the final turn (turn {turn})",
        need,
        if need == 1 { "" } else { "s" },
        effect.kind,
        one_line(&pactum_core::contract::short_json(&effect.details), 120)
    );
    Ok(vec![Alt {
        kind: format!("inject-side-effect:{}", s.kind),
        description,
        edits: (0..need.min(100))
            .map(|_| Edit::InjectSideEffect {
                turn,
                effect: effect.clone(),
            })
            .collect(),
    }])
}

fn not_the_targets_text(source: TextSource) -> String {
    match source {
        TextSource::ToolArguments => {
            "planting text in tool arguments is not generated (author a probe for it)".into()
        }
        other => format!(
            "the check reads {} text, which the target does not write: no probe of its behaviour plants it",
            other.as_str()
        ),
    }
}

/// Plants `text` in the response of the scope's turns: appended after a
/// blank line, or (for `equals`, or when appending does not make the
/// check fire, e.g. an anchored pattern) as the whole response.
fn inject_text(
    p: &Predicate,
    source: TextSource,
    scope: TurnScope,
    text: String,
    whole: bool,
    t: &Trace,
) -> Planned {
    if source != TextSource::Response {
        return Err(not_the_targets_text(source));
    }
    let turns = scope_turns(scope, t)?;
    let append: Vec<Edit> = turns
        .iter()
        .map(|&turn| Edit::AppendResponse {
            turn,
            text: text.clone(),
        })
        .collect();
    let replace: Vec<Edit> = turns
        .iter()
        .map(|&turn| Edit::ReplaceResponse {
            turn,
            text: text.clone(),
        })
        .collect();
    let appended_works = !whole && {
        let compiled = CompiledPredicate::compile(p).map_err(|e| e.to_string())?;
        apply(t, &append)
            .map(|m| compiled.evaluate(&m).outcome == Outcome::Detected)
            .unwrap_or(false)
    };
    let (edits, verb) = if appended_works {
        (append, "append")
    } else {
        (replace, "make")
    };
    let where_ = turn_words(&turns, t);
    let description = if verb == "append" {
        format!("append {} to the response of {where_}", quoted(&text))
    } else {
        format!("make the response of {where_} {}", quoted(&text))
    };
    Ok(vec![Alt {
        kind: "inject-text".into(),
        description,
        edits,
    }])
}

fn remove_calls(m: &ToolCallMatch, t: &Trace) -> Result<Alt, String> {
    let found = matching_calls(m, t, true)?;
    if found.is_empty() {
        return Err(format!(
            "no call matching {} to remove",
            one_line(&pactum_core::contract::describe_call(m), 100)
        ));
    }
    // Highest index first, so the positions stay valid as calls go.
    let edits: Vec<Edit> = found
        .iter()
        .rev()
        .map(|&(turn, index)| Edit::RemoveToolCall {
            turn,
            index,
            name: m.name.clone(),
        })
        .collect();
    let mut turns: Vec<usize> = found.iter().map(|(t, _)| *t).collect();
    turns.dedup();
    Ok(Alt {
        kind: format!("remove-tool-call:{}", m.name),
        description: format!(
            "remove every call matching {} ({} call{} in {})",
            one_line(&pactum_core::contract::describe_call(m), 120),
            found.len(),
            if found.len() == 1 { "" } else { "s" },
            turn_words(&turns, t)
        ),
        edits,
    })
}

fn corrupt_argument(
    m: &ToolCallMatch,
    pointer: &str,
    vm: &ValueMatch,
    t: &Trace,
) -> Result<Option<Alt>, String> {
    // Only calls whose arguments could be read have an argument to change.
    let found = matching_calls(m, t, false)?;
    let compiled = CompiledValueMatch::compile(vm.clone()).map_err(|e| e.to_string())?;
    let mut edits = Vec::new();
    let mut shown = None;
    for &(turn, index) in &found {
        let Some(call) = t.turns.get(turn - 1).and_then(|x| x.tool_calls.get(index)) else {
            continue;
        };
        let from = call.arguments.pointer(pointer).cloned();
        let Some(to) = corrupted_value(&compiled, from.as_ref().unwrap_or(&Value::Null)) else {
            return Ok(None);
        };
        shown.get_or_insert_with(|| (from.clone(), to.clone()));
        edits.push(Edit::SetArgument {
            turn,
            index,
            name: m.name.clone(),
            pointer: pointer.to_string(),
            from,
            to,
        });
    }
    let Some((from, to)) = shown else {
        return Ok(None);
    };
    let show = |v: &Option<Value>| {
        v.as_ref().map_or("(absent)".to_string(), |v| {
            one_line(&pactum_core::contract::short_json(v), 80)
        })
    };
    let short_ptr = pointer.trim_start_matches('/').replace('/', ".");
    Ok(Some(Alt {
        kind: format!("corrupt-argument:{}.{short_ptr}", m.name),
        description: format!(
            "change argument {pointer} of the {} matching {} call{} from {} to {}",
            edits.len(),
            m.name,
            if edits.len() == 1 { "" } else { "s" },
            show(&from),
            show(&to)
        ),
        edits,
    }))
}

fn remove_effects(s: &SideEffectSpec, t: &Trace) -> Planned {
    // The evaluator's rule of which effect the check names.
    let matcher = CompiledEffectMatch::compile(s).map_err(|e| e.to_string())?;
    let mut edits = Vec::new();
    for (ti, turn) in t.turns.iter().enumerate() {
        for (ei, e) in turn.side_effects.iter().enumerate().rev() {
            if matcher.matches(e) {
                edits.push(Edit::RemoveSideEffect {
                    turn: ti + 1,
                    index: ei,
                    kind: e.kind.clone(),
                });
            }
        }
    }
    if edits.is_empty() {
        return Err(format!("no {} side effect to remove", s.kind));
    }
    Ok(vec![Alt {
        kind: format!("remove-side-effect:{}", s.kind),
        description: format!(
            "remove every matching {} side effect ({})",
            s.kind,
            edits.len()
        ),
        edits,
    }])
}

fn regex_as_text(m: &RegexMatch) -> TextMatch {
    TextMatch {
        text: m.pattern.clone(),
        source: m.source,
        turns: m.turns,
        echo: m.echo,
    }
}

/// Cuts every match out of the response of the scope's turns (`any`:
/// every turn; `final` and `every`: the final turn, which is enough).
fn remove_text(p: &Predicate, m: &TextMatch, regex: Option<&RegexMatch>, t: &Trace) -> Planned {
    if m.source != TextSource::Response {
        return Err(match m.source {
            TextSource::ToolArguments => {
                "removing text from tool arguments is not generated (author a probe for it)".into()
            }
            other => not_the_targets_text(other),
        });
    }
    let last = final_turn(t)?;
    let turns: Vec<usize> = match m.turns {
        TurnScope::Any => (1..=last).collect(),
        TurnScope::Final | TurnScope::Every => vec![last],
    };
    let pattern: Option<Regex> = match (p, regex) {
        (_, Some(r)) => Some(Regex::new(&r.pattern).map_err(|e| e.to_string())?),
        (Predicate::Icontains(_), _) => Some(
            regex::RegexBuilder::new(&regex::escape(&m.text))
                .case_insensitive(true)
                .build()
                .map_err(|e| e.to_string())?,
        ),
        _ => None,
    };
    let mut edits = Vec::new();
    let mut all_removed: Vec<String> = Vec::new();
    for turn in turns {
        let Some(old) = t.turns.get(turn - 1).and_then(|x| x.response.clone()) else {
            continue;
        };
        let mut removed = Vec::new();
        let new = match (p, &pattern) {
            (Predicate::Equals(_), _) => {
                if old.trim() == m.text.trim() {
                    removed.push(old.trim().to_string());
                    String::new()
                } else {
                    old.clone()
                }
            }
            (_, Some(re)) => {
                let mut s = old.clone();
                // A cut can join text into a new match (`aab` minus `ab`):
                // cut again, a bounded number of times.
                for _ in 0..5 {
                    let found: Vec<String> =
                        re.find_iter(&s).map(|x| x.as_str().to_string()).collect();
                    if found.is_empty() || found.iter().all(String::is_empty) {
                        break;
                    }
                    removed.extend(found.into_iter().filter(|x| !x.is_empty()));
                    s = re.replace_all(&s, "").into_owned();
                }
                s
            }
            _ => {
                let mut s = old.clone();
                if !m.text.is_empty() {
                    for _ in 0..5 {
                        let n = s.matches(m.text.as_str()).count();
                        if n == 0 {
                            break;
                        }
                        removed.extend(std::iter::repeat_n(m.text.clone(), n));
                        s = s.replace(m.text.as_str(), "");
                    }
                }
                s
            }
        };
        if new != old {
            all_removed.extend(removed.iter().cloned());
            edits.push(Edit::RemoveResponseText {
                turn,
                removed,
                text: new,
            });
        }
    }
    if edits.is_empty() {
        return Err("the text the check looks for is not in the response".into());
    }
    let mut shown: Vec<String> = all_removed.iter().take(3).map(|s| quoted(s)).collect();
    if all_removed.len() > 3 {
        shown.push(format!("and {} more", all_removed.len() - 3));
    }
    let turns: Vec<usize> = edits
        .iter()
        .map(|e| match e {
            Edit::RemoveResponseText { turn, .. } => *turn,
            _ => 0,
        })
        .collect();
    Ok(vec![Alt {
        kind: "remove-text".into(),
        description: format!(
            "cut {} from the response of {}",
            shown.join(", "),
            turn_words(&turns, t)
        ),
        edits,
    }])
}

fn break_json(scope: TurnScope, t: &Trace) -> Planned {
    let last = final_turn(t)?;
    let turns: Vec<usize> = match scope {
        TurnScope::Any => (1..=last).collect(),
        TurnScope::Final | TurnScope::Every => vec![last],
    };
    let edits: Vec<Edit> = turns
        .into_iter()
        .filter_map(|turn| {
            let r = t.turns.get(turn - 1)?.response.as_deref()?;
            serde_json::from_str::<Value>(r).ok()?;
            Some(Edit::ReplaceResponse {
                turn,
                text: format!("{r}{JSON_BREAKER}"),
            })
        })
        .collect();
    if edits.is_empty() {
        return Err("no JSON response to break".into());
    }
    let turns: Vec<usize> = edits
        .iter()
        .map(|e| match e {
            Edit::ReplaceResponse { turn, .. } => *turn,
            _ => 0,
        })
        .collect();
    Ok(vec![Alt {
        kind: "break-json".into(),
        description: format!(
            "append {:?} after the JSON response of {}, so it no longer parses",
            JSON_BREAKER.trim(),
            turn_words(&turns, t)
        ),
        edits,
    }])
}
