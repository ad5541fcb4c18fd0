//! Edits: the machine-readable steps that turn a clean trace into a probe
//! trace, and the one function that applies them ([`apply`]).
//!
//! Every edit names the turn (1-based) and, for a call or an effect, its
//! 0-based position within that turn *at the moment the edit applies*, so
//! a list of edits replays exactly, in order, on the clean trace.

use pactum_core::trace::{SideEffect, ToolCall, Trace};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One step of a mutation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Edit {
    /// Appends `call` to the tool calls of `turn`.
    InjectToolCall {
        /// 1-based turn.
        turn: usize,
        /// The call appended.
        call: ToolCall,
    },
    /// Removes the call at `index` of `turn`.
    RemoveToolCall {
        /// 1-based turn.
        turn: usize,
        /// 0-based position in the turn.
        index: usize,
        /// The removed call's name (for readers; checked when applied).
        name: String,
    },
    /// Sets (or, with `to: null`, removes) the argument at `pointer` of
    /// the call at `index` of `turn`.
    SetArgument {
        /// 1-based turn.
        turn: usize,
        /// 0-based position in the turn.
        index: usize,
        /// The call's name (checked when applied).
        name: String,
        /// JSON pointer into the call's arguments.
        pointer: String,
        /// The value before (`null`: absent).
        from: Option<Value>,
        /// The value after (`null`: removed).
        to: Option<Value>,
    },
    /// Appends `text` to the response of `turn`, after a blank line (or
    /// sets it, when the turn had no response text).
    AppendResponse {
        /// 1-based turn.
        turn: usize,
        /// The text appended.
        text: String,
    },
    /// Replaces the whole response of `turn` with `text`.
    ReplaceResponse {
        /// 1-based turn.
        turn: usize,
        /// The new response.
        text: String,
    },
    /// Replaces the response of `turn` with `text`, which is the old
    /// response with every excerpt in `removed` cut out.
    RemoveResponseText {
        /// 1-based turn.
        turn: usize,
        /// The excerpts cut, in order.
        removed: Vec<String>,
        /// The response after the cut.
        text: String,
    },
    /// Appends `effect` to the side effects of `turn`.
    InjectSideEffect {
        /// 1-based turn.
        turn: usize,
        /// The effect appended.
        effect: SideEffect,
    },
    /// Removes the side effect at `index` of `turn`.
    RemoveSideEffect {
        /// 1-based turn.
        turn: usize,
        /// 0-based position in the turn.
        index: usize,
        /// The removed effect's kind (checked when applied).
        kind: String,
    },
}

/// An edit that does not fit the trace it is applied to (a turn, call or
/// effect that is not there): a bug in whoever built the edit list, or a
/// list replayed on another trace.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("edit {index} ({op}) does not fit the trace: {reason}")]
pub struct EditError {
    /// 0-based position of the edit in its list.
    pub index: usize,
    /// The edit's `op` name.
    pub op: &'static str,
    /// What is missing.
    pub reason: String,
}

impl Edit {
    /// The edit's `op` name, as serialised.
    pub fn op(&self) -> &'static str {
        match self {
            Edit::InjectToolCall { .. } => "inject-tool-call",
            Edit::RemoveToolCall { .. } => "remove-tool-call",
            Edit::SetArgument { .. } => "set-argument",
            Edit::AppendResponse { .. } => "append-response",
            Edit::ReplaceResponse { .. } => "replace-response",
            Edit::RemoveResponseText { .. } => "remove-response-text",
            Edit::InjectSideEffect { .. } => "inject-side-effect",
            Edit::RemoveSideEffect { .. } => "remove-side-effect",
        }
    }

    fn turn(&self) -> usize {
        match self {
            Edit::InjectToolCall { turn, .. }
            | Edit::RemoveToolCall { turn, .. }
            | Edit::SetArgument { turn, .. }
            | Edit::AppendResponse { turn, .. }
            | Edit::ReplaceResponse { turn, .. }
            | Edit::RemoveResponseText { turn, .. }
            | Edit::InjectSideEffect { turn, .. }
            | Edit::RemoveSideEffect { turn, .. } => *turn,
        }
    }
}

/// Applies `edits` in order to a copy of `trace`.
///
/// # Errors
/// [`EditError`] when an edit names a turn, call or effect the trace (as
/// edited so far) does not have, or a call or effect of another name.
pub fn apply(trace: &Trace, edits: &[Edit]) -> Result<Trace, EditError> {
    let mut t = trace.clone();
    for (i, e) in edits.iter().enumerate() {
        apply_one(&mut t, e).map_err(|reason| EditError {
            index: i,
            op: e.op(),
            reason,
        })?;
    }
    Ok(t)
}

fn apply_one(t: &mut Trace, e: &Edit) -> Result<(), String> {
    let n = e.turn();
    let turns = t.turns.len();
    let turn = n
        .checked_sub(1)
        .and_then(|i| t.turns.get_mut(i))
        .ok_or_else(|| format!("turn {n} does not exist (the trace has {turns})"))?;
    match e {
        Edit::InjectToolCall { call, .. } => turn.tool_calls.push(call.clone()),
        Edit::RemoveToolCall { index, name, .. } => {
            match turn.tool_calls.get(*index) {
                Some(c) if &c.name == name => {}
                _ => return Err(format!("turn {n} has no call {index} to {name}")),
            }
            turn.tool_calls.remove(*index);
        }
        Edit::SetArgument {
            index,
            name,
            pointer,
            to,
            ..
        } => {
            let call = turn
                .tool_calls
                .get_mut(*index)
                .filter(|c| &c.name == name)
                .ok_or_else(|| format!("turn {n} has no call {index} to {name}"))?;
            match to {
                Some(v) => set_pointer(&mut call.arguments, pointer, v.clone())?,
                None => remove_pointer(&mut call.arguments, pointer)?,
            }
        }
        Edit::AppendResponse { text, .. } => {
            turn.response = Some(match turn.response.take() {
                Some(r) if !r.trim().is_empty() => format!("{r}\n\n{text}"),
                _ => text.clone(),
            });
        }
        Edit::ReplaceResponse { text, .. } | Edit::RemoveResponseText { text, .. } => {
            turn.response = Some(text.clone());
        }
        Edit::InjectSideEffect { effect, .. } => turn.side_effects.push(effect.clone()),
        Edit::RemoveSideEffect { index, kind, .. } => {
            match turn.side_effects.get(*index) {
                Some(s) if &s.kind == kind => {}
                _ => {
                    return Err(format!(
                        "turn {n} has no side effect {index} of kind {kind}"
                    ))
                }
            }
            turn.side_effects.remove(*index);
        }
    }
    Ok(())
}

/// The reference tokens of `pointer`, unescaped by
/// [`pactum_core::json::pointer_tokens`]; a string that is not a pointer
/// is refused rather than read as the whole document.
fn tokens(pointer: &str) -> Result<Vec<String>, String> {
    pactum_core::json::pointer_tokens(pointer).map_err(|e| {
        format!(
            "`{}` is not a JSON pointer: {e}",
            pactum_core::text::one_line(pointer, 80)
        )
    })
}

fn array_index(token: &str) -> Option<usize> {
    if token == "0" || (!token.starts_with('0') && token.bytes().all(|b| b.is_ascii_digit())) {
        token.parse().ok()
    } else {
        None
    }
}

/// Sets the value at `pointer` in `root`, creating the objects (or, for a
/// numeric token, arrays padded with `null`) on the way. A scalar on the
/// way is replaced by an object. Arrays grow to at most 1,000 elements.
pub(crate) fn set_pointer(root: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    let toks = tokens(pointer)?;
    let Some((last, path)) = toks.split_last() else {
        *root = value;
        return Ok(());
    };
    let mut cur = root;
    for (i, tok) in path.iter().enumerate() {
        let next_is_index = toks.get(i + 1).and_then(|t| array_index(t)).is_some();
        cur = step(cur, tok, next_is_index)?;
    }
    match (cur, array_index(last)) {
        (Value::Array(items), Some(i)) => {
            grow(items, i)?;
            if let Some(slot) = items.get_mut(i) {
                *slot = value;
            }
        }
        (other, _) => {
            if !other.is_object() {
                *other = Value::Object(Map::new());
            }
            if let Value::Object(m) = other {
                m.insert(last.clone(), value);
            }
        }
    }
    Ok(())
}

fn grow(items: &mut Vec<Value>, i: usize) -> Result<(), String> {
    if i >= 1000 {
        return Err(format!("array index {i} is too large to build"));
    }
    if items.len() <= i {
        items.resize(i + 1, Value::Null);
    }
    Ok(())
}

fn step<'a>(cur: &'a mut Value, tok: &str, next_is_index: bool) -> Result<&'a mut Value, String> {
    let fresh = || {
        if next_is_index {
            Value::Array(Vec::new())
        } else {
            Value::Object(Map::new())
        }
    };
    let index = array_index(tok).filter(|_| cur.is_array());
    if index.is_none() && !cur.is_object() {
        *cur = Value::Object(Map::new());
    }
    match (cur, index) {
        (Value::Array(items), Some(i)) => {
            grow(items, i)?;
            let slot = items
                .get_mut(i)
                .ok_or_else(|| format!("array index {i} out of range"))?;
            if slot.is_null() {
                *slot = fresh();
            }
            Ok(slot)
        }
        (Value::Object(m), _) => Ok(m.entry(tok.to_string()).or_insert_with(fresh)),
        _ => Err("unreachable: neither an array nor an object".into()),
    }
}

/// Removes the value at `pointer` from `root` (nothing when absent).
///
/// # Errors
/// `pointer` is not a JSON pointer.
pub(crate) fn remove_pointer(root: &mut Value, pointer: &str) -> Result<(), String> {
    let toks = tokens(pointer)?;
    let Some((last, path)) = toks.split_last() else {
        *root = Value::Null;
        return Ok(());
    };
    let mut cur = root;
    for tok in path {
        let next = match cur {
            Value::Object(m) => m.get_mut(tok.as_str()),
            Value::Array(items) => array_index(tok).and_then(|i| items.get_mut(i)),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return Ok(()),
        }
    }
    match cur {
        Value::Object(m) => {
            m.shift_remove(last.as_str());
        }
        Value::Array(items) => {
            if let Some(i) = array_index(last).filter(|i| *i < items.len()) {
                items.remove(i);
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_build_objects_and_arrays() {
        let mut v = Value::Null;
        set_pointer(&mut v, "/a/b", json!(1)).unwrap();
        set_pointer(&mut v, "/list/1", json!("x")).unwrap();
        set_pointer(&mut v, "/a~1b", json!(true)).unwrap();
        assert_eq!(v, json!({"a": {"b": 1}, "list": [null, "x"], "a/b": true}));
        remove_pointer(&mut v, "/a/b").unwrap();
        remove_pointer(&mut v, "/list/0").unwrap();
        remove_pointer(&mut v, "/nope/x").unwrap();
        assert_eq!(v, json!({"a": {}, "list": ["x"], "a/b": true}));
        // Not a pointer: refused, never read as the whole document.
        for bad in ["a", "/a~2", "/~"] {
            assert!(set_pointer(&mut v, bad, json!(1)).is_err(), "{bad}");
            assert!(remove_pointer(&mut v, bad).is_err(), "{bad}");
        }
        assert_eq!(v, json!({"a": {}, "list": ["x"], "a/b": true}));
        assert!(set_pointer(&mut v, "/list/5000", json!(1)).is_err());
        assert_eq!(v.pointer("/list/0"), Some(&json!("x")));
    }

    #[test]
    fn edits_that_do_not_fit_are_errors_not_panics() {
        let t: Trace = serde_json::from_value(json!({
            "id": "t", "observability": "full",
            "turns": [{"response": "hi", "tool_calls": [{"name": "a", "arguments": {}}]}]
        }))
        .unwrap();
        for bad in [
            Edit::RemoveToolCall {
                turn: 1,
                index: 0,
                name: "b".into(),
            },
            Edit::RemoveToolCall {
                turn: 1,
                index: 3,
                name: "a".into(),
            },
            Edit::AppendResponse {
                turn: 0,
                text: "x".into(),
            },
            Edit::AppendResponse {
                turn: 2,
                text: "x".into(),
            },
            Edit::RemoveSideEffect {
                turn: 1,
                index: 0,
                kind: "k".into(),
            },
        ] {
            let e = apply(&t, std::slice::from_ref(&bad)).unwrap_err();
            assert_eq!(e.op, bad.op());
        }
        let ok = apply(
            &t,
            &[
                Edit::AppendResponse {
                    turn: 1,
                    text: "more".into(),
                },
                Edit::RemoveToolCall {
                    turn: 1,
                    index: 0,
                    name: "a".into(),
                },
            ],
        )
        .unwrap();
        assert_eq!(ok.turns[0].response.as_deref(), Some("hi\n\nmore"));
        assert!(ok.turns[0].tool_calls.is_empty());
    }
}
