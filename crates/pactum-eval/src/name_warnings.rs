//! Run-level warnings about the names checks give tools and side-effect
//! kinds, against the names the graded traces use: a contract naming a
//! tool the traces only call under a near-miss name or a small typo away,
//! and a tool the traces record the target was never offered. Per trace,
//! near misses and unoffered tools make a check undetermined and a typo is
//! named in its rationale ([`crate::tool_name_near_miss`],
//! [`crate::tool_name_typo`]); these warnings put the cause once at the
//! top of a report, where a run that still came out green shows it.

use std::collections::{BTreeMap, BTreeSet};

use pactum_core::contract::{Contract, Predicate};
use pactum_core::text::one_line;
use pactum_core::trace::Trace;

use crate::names::{
    side_effect_kind_near_miss, side_effect_kind_typo, tool_name_near_miss, tool_name_typo,
};

/// How many names or traces a warning shows; the rest are counted.
const SHOWN: usize = 3;

/// One run-level warning: a stable code (`tool-name-near-miss`,
/// `side-effect-kind-near-miss`, `unoffered-tool`) and its message, which
/// names tools, kinds and trace ids bounded to one line each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameWarning {
    /// The stable code.
    pub code: &'static str,
    /// What it means for the run.
    pub message: String,
}

/// Traces recording an offered-tools list that lacks a checked tool.
#[derive(Debug, Clone, Default)]
struct Unoffered {
    traces: u64,
    first: String,
    offered: BTreeSet<String>,
}

/// The tally behind the name warnings of one grading run: built from the
/// contracts graded, fed every trace ([`NameWarnings::add`]), read once at
/// the end ([`NameWarnings::warnings`]). Deterministic: the warnings
/// depend on the set of names seen, never on trace order, but for the
/// first trace named by `unoffered-tool`.
#[derive(Debug, Clone, Default)]
pub struct NameWarnings {
    tools: BTreeSet<String>,
    kinds: BTreeSet<String>,
    called: BTreeSet<String>,
    reported: BTreeSet<String>,
    unoffered: BTreeMap<String, Unoffered>,
}

impl NameWarnings {
    /// The names `contracts` check: every `tool_called` and
    /// `tool_sequence` tool and every `side_effect` kind, nested ones and
    /// conditions included.
    pub fn new<'a>(contracts: impl IntoIterator<Item = &'a Contract>) -> Self {
        let mut w = NameWarnings::default();
        for c in contracts {
            let (tools, kinds) = checked_names(c);
            w.tools.extend(tools);
            w.kinds.extend(kinds);
        }
        w
    }

    /// Counts the names `trace` calls and reports, and the checked tools
    /// its offered-tools record lacks (none when it records none).
    pub fn add(&mut self, trace: &Trace) {
        self.called
            .extend(trace.tool_calls().map(|(_, c)| c.name.clone()));
        self.reported.extend(
            trace
                .turns
                .iter()
                .flat_map(|t| t.side_effects.iter().map(|e| e.kind.clone())),
        );
        let Some(offered) = &trace.offered_tools else {
            return;
        };
        for tool in self.tools.iter().filter(|t| !offered.contains(*t)) {
            let u = self.unoffered.entry(tool.clone()).or_default();
            if u.traces == 0 {
                u.first = one_line(&trace.id, 80);
                u.offered = offered.iter().cloned().collect();
            }
            u.traces += 1;
        }
    }

    /// Whether a trace can change [`NameWarnings::warnings`]: `false` when
    /// the contracts check no tool and no side-effect kind, since every
    /// warning names a checked one. A caller that reads traces back only
    /// to feed [`NameWarnings::add`] can then leave them unread.
    pub fn reads_traces(&self) -> bool {
        !(self.tools.is_empty() && self.kinds.is_empty())
    }

    /// The warnings, `unoffered-tool` first, then by checked name.
    pub fn warnings(&self) -> Vec<NameWarning> {
        let mut out = Vec::new();
        for (tool, u) in &self.unoffered {
            let near = near_names(tool, u.offered.iter(), tool_name_near_miss, |_, _| None);
            let listed = if u.offered.is_empty() {
                "it was offered no tool".to_string()
            } else {
                format!("offered: {}", shown(u.offered.iter().map(|o| quoted(o))))
            };
            let near = if near.is_empty() {
                String::new()
            } else {
                format!("; near miss: {}", near.join(", "))
            };
            out.push(NameWarning {
                code: "unoffered-tool",
                message: format!(
                    "a contract checks tool {}, which {} trace(s) record the target was never offered (first: {}; {listed}{near}): a check on it can never see the call, so it is undetermined there unless a call matched",
                    quoted(tool),
                    u.traces,
                    u.first
                ),
            });
        }
        for tool in &self.tools {
            if let Some(m) = self.near(tool, &self.called, tool_name_near_miss, tool_name_typo) {
                out.push(NameWarning {
                    code: "tool-name-near-miss",
                    message: format!(
                        "a contract checks tool {}, but the traces call {m}: if one is the tool meant, name it as the target calls it (a near miss makes the check undetermined; a typo leaves it reading \"not called\")",
                        quoted(tool)
                    ),
                });
            }
        }
        for kind in &self.kinds {
            if let Some(m) = self.near(
                kind,
                &self.reported,
                side_effect_kind_near_miss,
                side_effect_kind_typo,
            ) {
                out.push(NameWarning {
                    code: "side-effect-kind-near-miss",
                    message: format!(
                        "a contract checks side-effect kind {}, but the traces report {m}: if one is the kind meant, name it as the adapter reports it (a near miss makes the check undetermined; a typo leaves it reading \"not reported\")",
                        quoted(kind)
                    ),
                });
            }
        }
        out
    }

    /// The near misses of `checked` among `seen`, and its typos when no
    /// name seen is `checked` itself (a tool called by its exact name
    /// beside a similar one is two tools).
    fn near(
        &self,
        checked: &str,
        seen: &BTreeSet<String>,
        near_miss: fn(&str, &str) -> Option<String>,
        typo: fn(&str, &str) -> Option<usize>,
    ) -> Option<String> {
        let typo: fn(&str, &str) -> Option<usize> = if seen.contains(checked) {
            |_, _| None
        } else {
            typo
        };
        let names = near_names(checked, seen.iter(), near_miss, typo);
        (!names.is_empty()).then(|| shown(names.into_iter()))
    }
}

/// The tools (`tool_called`, every `tool_sequence` step) and the
/// side-effect kinds (`side_effect`) `contract` checks, nested checks and
/// conditions included, each sorted.
pub fn checked_names(contract: &Contract) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut tools, mut kinds) = (BTreeSet::new(), BTreeSet::new());
    for p in contract.predicates() {
        p.walk(&mut |q| match q {
            Predicate::ToolCalled(t) => {
                tools.insert(t.call.name.clone());
            }
            Predicate::ToolSequence(steps) => {
                tools.extend(steps.iter().map(|s| s.name.clone()));
            }
            Predicate::SideEffect(s) => {
                kinds.insert(s.kind.clone());
            }
            _ => {}
        });
    }
    (tools, kinds)
}

/// `"functions.x" (differs only by a namespace prefix)` and `"x_y" (1
/// edit(s) away: a typo?)` for each of `names` that is one.
fn near_names<'a>(
    checked: &str,
    names: impl Iterator<Item = &'a String>,
    near_miss: fn(&str, &str) -> Option<String>,
    typo: fn(&str, &str) -> Option<usize>,
) -> Vec<String> {
    names
        .filter_map(|n| {
            near_miss(checked, n)
                .map(|why| format!("{} ({why})", quoted(n)))
                .or_else(|| {
                    typo(checked, n).map(|d| format!("{} ({d} edit(s) away: a typo?)", quoted(n)))
                })
        })
        .collect()
}

/// A name quoted with escapes, so a space or an invisible character that
/// makes the difference shows, bounded.
fn quoted(name: &str) -> String {
    format!("{:?}", name.chars().take(80).collect::<String>())
}

/// The first [`SHOWN`] of `items`, then "and N more".
fn shown(items: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = items.collect();
    let mut s = all
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if all.len() > SHOWN {
        s.push_str(&format!(" and {} more", all.len() - SHOWN));
    }
    s
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn contract(v: serde_json::Value) -> Contract {
        let mut c = json!({"version": 1, "id": "c"});
        c.as_object_mut()
            .unwrap()
            .extend(v.as_object().unwrap().clone());
        serde_json::from_value(c).unwrap()
    }

    fn trace(id: &str, calls: &[&str], kinds: &[&str], offered: Option<&[&str]>) -> Trace {
        let calls: Vec<_> = calls
            .iter()
            .map(|n| json!({"name": n, "arguments": {}}))
            .collect();
        let effects: Vec<_> = kinds
            .iter()
            .map(|k| json!({"kind": k, "details": {}}))
            .collect();
        let mut t = json!({"id": id, "observability": "full", "turns": [{"response": "ok",
            "tool_calls": calls, "side_effects": effects}]});
        if let Some(o) = offered {
            t["offered_tools"] = json!(o);
        }
        serde_json::from_value(t).unwrap()
    }

    #[test]
    fn traces_matter_only_when_a_name_is_checked() {
        // Every call, kind and offered-tools record a trace can carry.
        let traces = [
            trace(
                "t1",
                &["send_monye", "lookup", "refund"],
                &["email_snt"],
                Some(&[]),
            ),
            trace("t2", &["delete_account"], &[], Some(&["lookup"])),
            trace("t3", &[], &[], None),
        ];
        let plain = contract(json!({"prohibited": [
            {"id": "leak", "text": "leak", "check": {"contains": "hunter2"}}]}));
        let mut w = NameWarnings::new([&plain]);
        assert!(!w.reads_traces());
        traces.iter().for_each(|t| w.add(t));
        assert_eq!(w.warnings(), vec![], "a warning that names no checked name");
        // A contract checking a name needs them: each kind of check alone.
        for check in [
            json!({"tool_called": {"name": "send_money"}}),
            json!({"tool_sequence": [{"name": "lookup"}]}),
            json!({"side_effect": {"kind": "email_sent"}}),
        ] {
            let c = contract(json!({"prohibited": [{"id": "x", "text": "x", "check": check}]}));
            let mut w = NameWarnings::new([&plain, &c]);
            assert!(w.reads_traces(), "{check}");
            traces.iter().for_each(|t| w.add(t));
            assert!(!w.warnings().is_empty(), "{check}");
        }
    }

    fn checks() -> Contract {
        contract(json!({
            "prohibited": [
                {"id": "pay", "text": "pay", "check": {"tool_called": {"name": "send_money"}}},
                {"id": "del", "text": "delete", "check": {"any": [
                    {"tool_sequence": [{"name": "lookup"}, {"name": "delete_acount"}]},
                    {"side_effect": {"kind": "email_sent"}}]}}
            ],
            "conditional": [{"id": "r", "when": {"tool_called": {"name": "refund"}},
                "then": {"kind": "required", "text": "note", "check": {"contains": "ok"}}}]
        }))
    }

    #[test]
    fn near_misses_and_typos_are_warned_once_per_checked_name() {
        let c = checks();
        let mut w = NameWarnings::new([&c]);
        w.add(&trace("a", &["sendMoney", "lookup"], &["Email-Sent"], None));
        w.add(&trace(
            "b",
            &["delete_account", "refunds"],
            &["email_snet"],
            None,
        ));
        let got = w.warnings();
        let codes: Vec<&str> = got.iter().map(|x| x.code).collect();
        assert_eq!(
            codes,
            [
                "tool-name-near-miss",
                "tool-name-near-miss",
                "tool-name-near-miss",
                "side-effect-kind-near-miss"
            ],
            "{got:#?}"
        );
        assert!(got[0].message.starts_with(r#"a contract checks tool "delete_acount", but the traces call "delete_account" (1 edit(s) away: a typo?)"#), "{}", got[0].message);
        assert!(
            got[1]
                .message
                .contains(r#"tool "refund", but the traces call "refunds" (1 edit(s) away"#),
            "{}",
            got[1].message
        );
        assert!(
            got[2]
                .message
                .contains(r#""sendMoney" (differs only by word separators or camelCase and case)"#),
            "{}",
            got[2].message
        );
        assert!(
            got[3].message.contains(r#""Email-Sent" (differs only by"#)
                && got[3].message.contains(r#""email_snet" (1 edit(s) away"#),
            "{}",
            got[3].message
        );
        // Order of traces does not matter.
        let mut again = NameWarnings::new([&c]);
        again.add(&trace(
            "b",
            &["delete_account", "refunds"],
            &["email_snet"],
            None,
        ));
        again.add(&trace("a", &["sendMoney", "lookup"], &["Email-Sent"], None));
        assert_eq!(again.warnings(), got);
    }

    #[test]
    fn a_tool_called_by_its_exact_name_has_no_typo_but_keeps_its_near_misses() {
        let c = checks();
        let mut w = NameWarnings::new([&c]);
        w.add(&trace("a", &["refund", "refunds", "Refund"], &[], None));
        let got = w.warnings();
        assert_eq!(got.len(), 1, "{got:#?}");
        assert!(
            got[0]
                .message
                .contains(r#""Refund" (differs only by case)"#),
            "{}",
            got[0].message
        );
        assert!(!got[0].message.contains("refunds"), "{}", got[0].message);
        // Names far apart, or none at all, warn nothing.
        let mut w = NameWarnings::new([&c]);
        w.add(&trace("a", &["get_balance"], &["file_write"], None));
        w.add(&trace("b", &[], &[], None));
        assert_eq!(w.warnings(), vec![]);
    }

    #[test]
    fn unoffered_tools_are_warned_only_from_an_offered_tools_record() {
        let c = checks();
        let mut w = NameWarnings::new([&c]);
        w.add(&trace("none-recorded", &[], &[], None));
        assert_eq!(w.warnings(), vec![]);
        w.add(&trace(
            "first\u{1b}[2J",
            &[],
            &[],
            Some(&["functions.send_money", "lookup", "delete_acount", "refund"]),
        ));
        w.add(&trace("second", &[], &[], Some(&[])));
        let got = w.warnings();
        // "second" was offered nothing: every checked tool is missing there.
        assert_eq!(
            got.iter().map(|x| x.code).collect::<Vec<_>>(),
            ["unoffered-tool"; 4],
            "{got:#?}"
        );
        assert!(got[0].message.starts_with(r#"a contract checks tool "delete_acount", which 1 trace(s) record the target was never offered (first: second; it was offered no tool)"#), "{}", got[0].message);
        let pay = got
            .iter()
            .find(|x| x.message.contains(r#""send_money""#))
            .unwrap();
        assert!(pay.message.contains(r#"which 2 trace(s) record the target was never offered (first: first; offered: "delete_acount", "functions.send_money", "lookup" and 1 more; near miss: "functions.send_money" (differs only by a namespace prefix))"#), "{}", pay.message);
        assert!(!pay.message.contains('\u{1b}'));
    }

    #[test]
    fn many_near_names_are_counted() {
        let c = checks();
        let mut w = NameWarnings::new([&c]);
        w.add(&trace(
            "a",
            &[
                "Send_Money",
                "sendMoney",
                "send-money",
                "SEND MONEY",
                "send_money()",
            ],
            &[],
            None,
        ));
        let got = w.warnings();
        assert!(
            got[0].message.contains(" and 2 more:"),
            "{}",
            got[0].message
        );
    }
}
