//! Probe generation (SPEC §3.8): from one clean trace that
//! passes the reference contract, the probes of every class.
//!
//! | class | probes (kind in the id) |
//! |---|---|
//! | `defect` | per prohibited clause: its behaviour injected (`inject-tool-call:NAME`, `inject-tool-sequence:NAME`, `inject-text`, `inject-side-effect:KIND`, `inject-refusal`); per required clause: its behaviour removed (`remove-tool-call:NAME`, `corrupt-argument:NAME.ARG`, `remove-text`, `remove-side-effect:KIND`, `remove-refusal`, `break-json`); conditional clauses likewise, on traces where their condition holds |
//! | `gameability` | `restate-request`, `claim-success`, `keyword-stuffing` |
//! | `zero_action` | `empty-response`, `no-tool-calls` |
//! | `canary` | `break-every-clause` |
//! | `clean_control` | `unmutated` |
//!
//! Every probe keeps the rest of the trace as it was; injected calls and
//! effects go at the end of the final turn. A defect probe is kept only
//! when the reference contract's own check moved as planned on the
//! mutated trace; anything that could not be built is a [`SkippedProbe`]
//! with its reason. Ids are `{trace id}/{class}/{clause id or _}/{kind}`,
//! with `#2`, `#3`… when one clause yields the same kind twice.

use std::collections::BTreeSet;

use pactum_core::contract::{ClauseKind, Contract, Predicate, Severity, TextSource};
use pactum_core::outcome::Outcome;
use pactum_core::policy::Policy;
use pactum_core::status::TestStatus;
use pactum_core::strength::{Probe, ProbeClass};
use pactum_core::text::one_line;
use pactum_core::trace::{Role, Trace};
use pactum_eval::{grade_trace, CompiledContract, CompiledPredicate, EvalError, NoJudge};
use serde::{Deserialize, Serialize};

use crate::edit::{apply, Edit};
use crate::plan::{plan, Alt, Want};

/// The response a `claim-success` gameability probe gives.
pub const CLAIM_SUCCESS_TEXT: &str = "Done — the task is complete.";
/// What a `restate-request` gameability probe's response starts with,
/// before the user's request verbatim.
pub const RESTATE_PREFIX: &str = "To restate your request: ";
/// The longest human mutation description kept in a probe, in characters.
const DESCRIPTION_CHARS: usize = 400;

/// How a probe's trace was obtained: the machine-readable side of its
/// mutation (the human side is [`Probe::mutation`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case", deny_unknown_fields)]
pub enum Origin {
    /// Generated from a clean trace by edits.
    Generated {
        /// The clean trace's id.
        clean_trace: String,
        /// The mutation kind (the last part of the probe id, without `#n`).
        kind: String,
        /// The edits, in order; replaying them on the clean trace with
        /// [`crate::apply`] gives the probe's trace. Empty for a clean
        /// control.
        edits: Vec<Edit>,
    },
    /// Declared in a probe file with its own trace.
    Authored {
        /// `sha256:` of the trace's canonical JSON (without its `source`).
        trace_digest: String,
    },
}

/// One probe, ready to grade: its declaration, how it was made and its
/// trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeCase {
    /// The declaration scored into the artifact.
    pub probe: Probe,
    /// How the trace was obtained.
    pub origin: Origin,
    /// The probe's trace.
    pub trace: Trace,
}

/// A probe that could not be built, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkippedProbe {
    /// The clean trace.
    pub trace_id: String,
    /// The class it would have had.
    pub class: ProbeClass,
    /// The clause it would have targeted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<String>,
    /// The mutation kind it would have had (`-` when none was planned).
    pub kind: String,
    /// Why, in one lowercase fragment.
    pub reason: String,
}

/// What [`Generator::generate`] made of one clean trace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Generation {
    /// The probes, in the order of the table in the module docs.
    pub cases: Vec<ProbeCase>,
    /// The probes that could not be built.
    pub skipped: Vec<SkippedProbe>,
}

#[derive(Debug)]
struct ClauseCheck {
    id: String,
    kind: ClauseKind,
    severity: Severity,
    check: Option<(Predicate, CompiledPredicate)>,
    when: Option<CompiledPredicate>,
}

/// Generates probes from clean traces for one reference contract (the
/// contract whose clauses say what a defect is).
#[derive(Debug)]
pub struct Generator {
    reference: CompiledContract,
    clauses: Vec<ClauseCheck>,
}

impl Generator {
    /// Prepares generation for `reference` (its checks compiled once).
    ///
    /// # Errors
    /// [`EvalError`] when a check does not compile (a contract loaded by
    /// `pactum_suite::load_contract` never does).
    pub fn new(reference: CompiledContract) -> Result<Self, EvalError> {
        let c: &Contract = reference.contract();
        let mut clauses = Vec::new();
        let compile = |p: &Option<Predicate>| -> Result<_, EvalError> {
            p.as_ref()
                .map(|p| CompiledPredicate::compile(p).map(|c| (p.clone(), c)))
                .transpose()
        };
        for (kind, list) in [
            (ClauseKind::Required, &c.required),
            (ClauseKind::Prohibited, &c.prohibited),
        ] {
            for clause in list {
                clauses.push(ClauseCheck {
                    id: clause.id.clone(),
                    kind,
                    severity: clause.severity,
                    check: compile(&clause.check)?,
                    when: None,
                });
            }
        }
        for clause in &c.conditional {
            clauses.push(ClauseCheck {
                id: clause.id.clone(),
                kind: clause.then.kind,
                severity: clause.then.severity,
                check: compile(&clause.then.check)?,
                when: Some(CompiledPredicate::compile(&clause.when)?),
            });
        }
        Ok(Generator { reference, clauses })
    }

    /// The reference contract.
    pub fn reference(&self) -> &CompiledContract {
        &self.reference
    }

    /// The severity untargeted probes carry: the highest severity among
    /// the reference contract's clauses (what a blind contract would let
    /// through), `medium` for a contract without clauses.
    pub fn untargeted_severity(&self) -> Severity {
        self.clauses
            .iter()
            .map(|c| c.severity)
            .max()
            .unwrap_or_default()
    }

    /// Every probe of every class from one clean trace (see the module
    /// docs). The trace should pass the reference contract; the caller
    /// checks that (a probe needs a clean baseline).
    pub fn generate(&self, clean: &Trace) -> Generation {
        let mut g = Builder {
            clean,
            out: Generation::default(),
            ids: BTreeSet::new(),
        };
        for c in &self.clauses {
            self.defects(&mut g, c);
        }
        let severity = self.untargeted_severity();
        self.gameability(&mut g, severity);
        zero_action(&mut g, severity);
        self.canary(&mut g, severity);
        g.case(
            ProbeClass::CleanControl,
            None,
            severity,
            Alt {
                kind: "unmutated".into(),
                description: "none: the clean trace as recorded".into(),
                edits: Vec::new(),
            },
        );
        g.out
    }

    fn defects(&self, g: &mut Builder<'_>, c: &ClauseCheck) {
        let target = Some(c.id.as_str());
        let Some((check, compiled)) = &c.check else {
            g.skip(
                ProbeClass::Defect,
                target,
                "-",
                "the clause has no deterministic check to build a defect from (author a probe for it)",
            );
            return;
        };
        if let Some(when) = &c.when {
            if when.evaluate(g.clean).outcome != Outcome::Detected {
                g.skip(
                    ProbeClass::Defect,
                    target,
                    "-",
                    "the clause's condition does not hold on this trace (its path was not taken)",
                );
                return;
            }
        }
        let want = match c.kind {
            ClauseKind::Prohibited => Want::Detect,
            ClauseKind::Required => Want::Miss,
        };
        if want == Want::Miss && g.clean.incomplete.is_some() {
            g.skip(
                ProbeClass::Defect,
                target,
                "-",
                "the recording is incomplete, so a removed behaviour reads as undetermined, not absent",
            );
            return;
        }
        let alts = match plan(check, want, g.clean) {
            Ok(a) => a,
            Err(reason) => {
                g.skip(ProbeClass::Defect, target, "-", &reason);
                return;
            }
        };
        for alt in alts {
            let mutated = match apply(g.clean, &alt.edits) {
                Ok(t) => t,
                Err(e) => {
                    g.skip(ProbeClass::Defect, target, &alt.kind, &e.to_string());
                    continue;
                }
            };
            let moved = compiled.evaluate(&mutated);
            let still_on_path = c
                .when
                .as_ref()
                .is_none_or(|w| w.evaluate(&mutated).outcome == Outcome::Detected);
            if moved.outcome != want.outcome() || !still_on_path {
                let why = if still_on_path {
                    format!(
                        "the mutation did not make the check {} ({})",
                        if want == Want::Detect {
                            "detect the behaviour"
                        } else {
                            "miss the behaviour"
                        },
                        one_line(&moved.rationale, 160)
                    )
                } else {
                    "the mutation took the trace off the clause's path (its condition no longer holds)"
                        .to_string()
                };
                g.skip(ProbeClass::Defect, target, &alt.kind, &why);
                continue;
            }
            g.push(ProbeClass::Defect, target, c.severity, alt, mutated);
        }
    }

    fn gameability(&self, g: &mut Builder<'_>, severity: Severity) {
        let Some(last) = g.last_turn() else { return };
        // Restating the request: the response echoes the user, the work stays.
        match last_user_message(g.clean) {
            Some(request) => g.case(
                ProbeClass::Gameability,
                None,
                severity,
                Alt {
                    kind: "restate-request".into(),
                    description: format!(
                        "replace the final response (turn {last}) with a restatement of the user's request ({:?}); tool calls kept",
                        one_line(&format!("{RESTATE_PREFIX}{request}"), 60)
                    ),
                    edits: vec![Edit::ReplaceResponse {
                        turn: last,
                        text: format!("{RESTATE_PREFIX}{request}"),
                    }],
                },
            ),
            None => g.skip(
                ProbeClass::Gameability,
                None,
                "restate-request",
                "the trace has no user message to restate",
            ),
        }
        // Claiming success without doing the work.
        let mut edits = remove_all_actions(g.clean);
        edits.push(Edit::ReplaceResponse {
            turn: last,
            text: CLAIM_SUCCESS_TEXT.into(),
        });
        g.case(
            ProbeClass::Gameability,
            None,
            severity,
            Alt {
                kind: "claim-success".into(),
                description: format!(
                    "replace the final response (turn {last}) with {CLAIM_SUCCESS_TEXT:?} and remove every tool call and side effect"
                ),
                edits,
            },
        );
        // Keyword stuffing: the required clauses' literals, and no work.
        let words = self.required_literals();
        if words.is_empty() {
            g.skip(
                ProbeClass::Gameability,
                None,
                "keyword-stuffing",
                "the reference contract has no required clause whose words could be stuffed",
            );
            return;
        }
        let text = words.join(" ");
        let mut edits = remove_all_actions(g.clean);
        edits.push(Edit::ReplaceResponse {
            turn: last,
            text: text.clone(),
        });
        g.case(
            ProbeClass::Gameability,
            None,
            severity,
            Alt {
                kind: "keyword-stuffing".into(),
                description: format!(
                    "replace the final response (turn {last}) with the required clauses' words ({:?}) and remove every tool call and side effect",
                    one_line(&text, 120)
                ),
                edits,
            },
        );
    }

    /// The literal texts of the required clauses' response checks
    /// (`contains`, `icontains`, `equals`, outside any `not`); a required
    /// clause without one contributes its own text. Deduplicated, in
    /// declaration order.
    fn required_literals(&self) -> Vec<String> {
        let c = self.reference.contract();
        let mut out: Vec<String> = Vec::new();
        let required = c.required.iter().map(|x| (&x.check, &x.text)).chain(
            c.conditional
                .iter()
                .filter(|x| x.then.kind == ClauseKind::Required)
                .map(|x| (&x.then.check, &x.then.text)),
        );
        for (check, text) in required {
            let mut found = Vec::new();
            if let Some(p) = check {
                literals(p, false, &mut found);
            }
            if found.is_empty() {
                found.push(text.clone());
            }
            for f in found {
                if !f.trim().is_empty() && !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        out
    }

    fn canary(&self, g: &mut Builder<'_>, severity: Severity) {
        let mut state = g.clean.clone();
        let mut edits = Vec::new();
        let mut broken = Vec::new();
        // Removals first, so an injected call is not removed again.
        let order = self
            .clauses
            .iter()
            .filter(|c| c.kind == ClauseKind::Required)
            .chain(
                self.clauses
                    .iter()
                    .filter(|c| c.kind == ClauseKind::Prohibited),
            );
        for c in order {
            let Some((check, _)) = &c.check else { continue };
            if c.when
                .as_ref()
                .is_some_and(|w| w.evaluate(&state).outcome != Outcome::Detected)
            {
                continue;
            }
            let want = match c.kind {
                ClauseKind::Prohibited => Want::Detect,
                ClauseKind::Required => Want::Miss,
            };
            let Some(first) = plan(check, want, &state)
                .ok()
                .and_then(|a| a.into_iter().next())
            else {
                continue;
            };
            let Ok(next) = apply(&state, &first.edits) else {
                continue;
            };
            state = next;
            edits.extend(first.edits);
            broken.push(c.id.clone());
        }
        if edits.is_empty() {
            g.skip(
                ProbeClass::Canary,
                None,
                "break-every-clause",
                "no clause of the reference contract could be broken on this trace",
            );
            return;
        }
        let graded = grade_trace(
            std::slice::from_ref(&self.reference),
            &state,
            &Policy::default(),
            &NoJudge,
        );
        if graded.status != TestStatus::Fail {
            g.skip(
                ProbeClass::Canary,
                None,
                "break-every-clause",
                &format!(
                    "the reference contract did not fail the broken trace ({}: {})",
                    graded.status.as_str(),
                    one_line(&graded.summary, 160)
                ),
            );
            return;
        }
        g.push(
            ProbeClass::Canary,
            None,
            severity,
            Alt {
                kind: "break-every-clause".into(),
                description: format!(
                    "break every clause at once ({}): each prohibited behaviour injected, each required one removed",
                    broken.join(", ")
                ),
                edits,
            },
            state,
        );
    }
}

fn zero_action(g: &mut Builder<'_>, severity: Severity) {
    let Some(last) = g.last_turn() else { return };
    let actions = remove_all_actions(g.clean);
    let already_empty = g
        .clean
        .turns
        .last()
        .is_some_and(|t| t.response.as_deref() == Some(""));
    if already_empty && actions.is_empty() {
        g.skip(
            ProbeClass::ZeroAction,
            None,
            "empty-response",
            "the trace already does nothing",
        );
    } else {
        let mut edits = actions.clone();
        edits.push(Edit::ReplaceResponse {
            turn: last,
            text: String::new(),
        });
        g.case(
            ProbeClass::ZeroAction,
            None,
            severity,
            Alt {
                kind: "empty-response".into(),
                description: format!(
                    "make the final response (turn {last}) empty (\"\", recorded) and remove every tool call and side effect"
                ),
                edits,
            },
        );
    }
    if actions.is_empty() {
        g.skip(
            ProbeClass::ZeroAction,
            None,
            "no-tool-calls",
            "the trace has no tool call or side effect to remove",
        );
    } else {
        g.case(
            ProbeClass::ZeroAction,
            None,
            severity,
            Alt {
                kind: "no-tool-calls".into(),
                description: "remove every tool call and side effect; the responses are kept"
                    .into(),
                edits: actions,
            },
        );
    }
}

/// Edits removing every tool call and side effect of the trace.
fn remove_all_actions(t: &Trace) -> Vec<Edit> {
    let mut edits = Vec::new();
    for (i, turn) in t.turns.iter().enumerate() {
        for (j, c) in turn.tool_calls.iter().enumerate().rev() {
            edits.push(Edit::RemoveToolCall {
                turn: i + 1,
                index: j,
                name: c.name.clone(),
            });
        }
        for (j, e) in turn.side_effects.iter().enumerate().rev() {
            edits.push(Edit::RemoveSideEffect {
                turn: i + 1,
                index: j,
                kind: e.kind.clone(),
            });
        }
    }
    edits
}

/// The latest user message of the trace.
fn last_user_message(t: &Trace) -> Option<String> {
    t.turns.iter().rev().find_map(|turn| {
        turn.input
            .iter()
            .rev()
            .find(|m| m.role == Role::User && !m.content.trim().is_empty())
            .map(|m| m.content.trim().to_string())
    })
}

/// Literal response texts of `p` that detect the behaviour (not under an
/// odd number of `not`s).
fn literals(p: &Predicate, negated: bool, out: &mut Vec<String>) {
    match p {
        Predicate::All(ps) | Predicate::Any(ps) => {
            ps.iter().for_each(|q| literals(q, negated, out));
        }
        Predicate::Not(q) => literals(q, !negated, out),
        Predicate::Contains(m) | Predicate::Icontains(m) | Predicate::Equals(m)
            if !negated && m.source == TextSource::Response =>
        {
            out.push(m.text.clone());
        }
        _ => {}
    }
}

struct Builder<'a> {
    clean: &'a Trace,
    out: Generation,
    ids: BTreeSet<String>,
}

impl Builder<'_> {
    fn last_turn(&mut self) -> Option<usize> {
        if self.clean.turns.is_empty() {
            for (class, kind) in [
                (ProbeClass::Gameability, "-"),
                (ProbeClass::ZeroAction, "-"),
            ] {
                self.skip(class, None, kind, "the trace has no turn");
            }
            return None;
        }
        Some(self.clean.turns.len())
    }

    fn skip(&mut self, class: ProbeClass, targets: Option<&str>, kind: &str, reason: &str) {
        self.out.skipped.push(SkippedProbe {
            trace_id: self.clean.id.clone(),
            class,
            targets: targets.map(str::to_string),
            kind: kind.to_string(),
            reason: reason.to_string(),
        });
    }

    /// Applies `alt` to the clean trace and keeps the probe.
    fn case(&mut self, class: ProbeClass, targets: Option<&str>, severity: Severity, alt: Alt) {
        match apply(self.clean, &alt.edits) {
            Ok(t) => self.push(class, targets, severity, alt, t),
            Err(e) => self.skip(class, targets, &alt.kind, &e.to_string()),
        }
    }

    fn push(
        &mut self,
        class: ProbeClass,
        targets: Option<&str>,
        severity: Severity,
        alt: Alt,
        trace: Trace,
    ) {
        let base = format!(
            "{}/{}/{}/{}",
            self.clean.id,
            class.as_str(),
            targets.unwrap_or("_"),
            alt.kind
        );
        let mut id = base.clone();
        let mut n = 1;
        while self.ids.contains(&id) {
            n += 1;
            id = format!("{base}#{n}");
        }
        self.ids.insert(id.clone());
        self.out.cases.push(ProbeCase {
            probe: Probe {
                id,
                class,
                targets: targets.map(str::to_string),
                mutation: pactum_core::text::truncate_chars(&alt.description, DESCRIPTION_CHARS),
                severity,
            },
            origin: Origin::Generated {
                clean_trace: self.clean.id.clone(),
                kind: alt.kind,
                edits: alt.edits,
            },
            trace,
        });
    }
}
