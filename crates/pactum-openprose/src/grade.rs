//! Grading an imported run: every declared clause of every contract gets
//! a verdict (SPEC §3.3–§3.5), and the run gets the contract grader's
//! report ([`RunGrade`]).
//!
//! Per clause, in this order:
//!
//! 1. a named output with no binding file, or an empty one, is
//!    `violated` (the missing file is the evidence);
//! 2. the phrasings [`crate::check`] reads are measured: one that fails is
//!    `violated` (an `each` clause with one item lacking a field too);
//!    when every measure held and nothing else is
//!    asked, `satisfied` (a clause of generic words only, "`summary`: a
//!    summary", asks only that the output exists);
//! 3. a clause whose other words are all vague is `not_evaluable`
//!    (`vague`), with a suggested rewrite;
//! 4. anything else goes to the judge through pactum-eval's grading (the
//!    confidence threshold, quote verification against the bindings, and
//!    `no-judge` without one).
//!
//! A conditional clause `if {condition}: {degraded output}` whose
//! condition names one declared error is triggered when the run recorded
//! that error for the contract (its degraded output is then graded, and
//! the ordinary clauses on the same output stand aside as not triggered),
//! not triggered when the contract finished without it (an untested
//! path), and `not_evaluable` when the run does not say, or the condition
//! is not plainly one declared error (a negation is never read).
//!
//! An error of the contract that no triggered conditional answers (each
//! recorded error counts, not only the first) leaves no ordinary clause
//! satisfied, even one a triggered conditional would have stood aside: one it does not declare (a crash) makes
//! them `violated`, a declared one `not_evaluable` (`unfinished`); a
//! judge's quote from another output than the clause's is
//! `fabricated-evidence`, and so is one behind a `satisfied` answer that
//! only restates the clause, the contract or an input.

use std::borrow::Cow;
use std::collections::BTreeMap;

use pactum_core::contract::{Clause, ClauseKind, Contract, Severity, CONTRACT_SCHEMA_VERSION};
use pactum_core::outcome::{Evaluation, Evidence, Outcome};
use pactum_core::result::{ContractResult, VerdictCounts};
use pactum_core::score::{run_scores, OverallVerdict};
use pactum_core::status::decide;
use pactum_core::text::{one_line, truncate_chars};
use pactum_core::trace::{Message, ObservabilityLevel, Role, Trace, Turn};
use pactum_core::verdict::{grade_clause, ClauseHead, ClauseResult, NotEvaluableReason, Verdict};
use pactum_core::{Policy, TestStatus};
use pactum_eval::CompiledContract;
use serde::{Deserialize, Serialize};

use crate::check::{measure_against, read, suggest_rewrite, Finding, Measure, Sparse, Unit};
use crate::contract::{clause_ids, error_key, DeclaredClause};
use crate::run::{Binding, Layout, Run, RunContract, RunError};

/// The version of [`RunGrade`]'s JSON shape.
pub const GRADE_VERSION: u32 = 1;

/// The longest excerpt of a binding kept as evidence, in characters
/// (SPEC §4: untrusted text is bounded).
pub const QUOTE_CHARS: usize = 300;

/// One output of a contract, as the report lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputInfo {
    /// The output's name.
    pub name: String,
    /// Its binding path, relative to the run.
    pub path: String,
    /// Whether a non-empty binding exists.
    pub produced: bool,
    /// The turn of the judge's transcript that holds it (quotes cite it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<usize>,
}

/// One graded contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContractGrade {
    /// The contract's name (node id; `{handle}--{slug}/…` in a nested run).
    pub name: String,
    /// The file its clauses came from, relative to the run.
    pub source: String,
    /// `sha256:` digest of its declared clauses (their texts, in order).
    pub digest: String,
    /// pactum's status for it (SPEC §3.5).
    pub status: TestStatus,
    /// One line saying why.
    pub summary: String,
    /// `(satisfied + 0.5 × partially_satisfied) / evaluable × 100`, `null`
    /// when nothing is evaluable.
    pub contract_score: Option<f64>,
    /// Verdict counts.
    pub counts: VerdictCounts,
    /// Every declared clause, in declaration order.
    pub clauses: Vec<ClauseResult>,
    /// Its outputs.
    pub outputs: Vec<OutputInfo>,
    /// Errors the run recorded for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<RunError>,
}

/// A conditional clause: was its condition triggered, and was the
/// degraded output provided?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConditionalGrade {
    /// The contract.
    pub contract: String,
    /// The clause id.
    pub clause: String,
    /// The condition as written.
    pub condition: String,
    /// The declared error it names, if exactly one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `true` triggered, `false` not, `null` the run does not say.
    pub triggered: Option<bool>,
    /// When triggered: whether a non-empty degraded output exists.
    pub degraded_output_provided: Option<bool>,
    /// The clause's verdict (`not_triggered` for an untested path).
    pub verdict: Verdict,
}

/// A clause that could not be graded, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unevaluable {
    /// The contract.
    pub contract: String,
    /// The clause id.
    pub clause: String,
    /// The clause text.
    pub text: String,
    /// Why (`vague`, `no-judge`, `undetermined`…).
    pub reason: NotEvaluableReason,
    /// The explanation.
    pub explanation: String,
}

/// What would make a clause gradable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    /// The contract.
    pub contract: String,
    /// The clause id.
    pub clause: String,
    /// The suggestion (a rewrite for a vague clause).
    pub suggestion: String,
}

/// The contract grader's report for one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunGrade {
    /// [`GRADE_VERSION`].
    pub version: u32,
    /// The run id.
    pub run_id: String,
    /// The system's (or root contract's) name.
    pub system: String,
    /// The run directory as given.
    pub dir: String,
    /// How the contracts were found.
    pub layout: Layout,
    /// Mean of the contract scores weighted by evaluable clauses; `null`
    /// when nothing is evaluable.
    pub overall_score: Option<f64>,
    /// `satisfied` / `partial` / `violated`; `null` when nothing is
    /// evaluable.
    pub overall_verdict: Option<OverallVerdict>,
    /// pactum's status for the whole run (SPEC §3.5 over every clause).
    pub status: TestStatus,
    /// One line saying why.
    pub summary: String,
    /// Every contract, in run order.
    pub contracts: Vec<ContractGrade>,
    /// Every conditional clause.
    pub conditional_clauses: Vec<ConditionalGrade>,
    /// Every clause that is `not_evaluable`.
    pub unevaluable_clauses: Vec<Unevaluable>,
    /// Suggestions for the unevaluable clauses.
    pub recommendations: Vec<Recommendation>,
    /// Conditional clauses never triggered (`contract/clause`), listed
    /// whatever the other verdicts.
    pub untested_paths: Vec<String>,
    /// Clauses (`contract/clause`) `satisfied` by a measure alone, which
    /// no judge read: a measure counts what is written (five rows, one
    /// of them made up; a field filled with "unknown" in another
    /// language), so these greens are literal. With a judge configured
    /// the judge reads every measured green and this list is empty.
    #[serde(default)]
    pub measured_only: Vec<String>,
    /// The caller's inputs (names and paths).
    pub inputs: Vec<OutputInfo>,
    /// Every error the run recorded.
    pub errors: Vec<RunError>,
}

/// How judged clauses are graded: given the pactum contract holding one
/// run contract's judged clauses (each a `judge` rubric) and the
/// transcript of its bindings, the graded contract. The pipeline passes
/// the real judge; [`no_judge`] grades every judged clause `no-judge`.
pub type JudgeFn<'a> = dyn FnMut(&CompiledContract, &Trace) -> ContractResult + 'a;

/// A judge's answers for one run contract whose transcript was judged in
/// `windows` windows (the judge's own split of a long transcript). With
/// more than one, a `satisfied` or `partially_satisfied` answer is read as
/// `not_evaluable` (`transcript-too-long`): every OpenProse clause is
/// required, and a judge combines a required clause's windows by "kept in
/// any window" (SPEC §3.3), which over a commitment not to do something
/// (`does not recommend a competitor`, `written in French`) is one clean
/// window passing it while another broke it. A `violated` answer stands.
pub struct Windowed<'a, J: pactum_eval::Judgments> {
    inner: &'a J,
    windows: usize,
}

impl<'a, J: pactum_eval::Judgments> Windowed<'a, J> {
    /// `inner`'s answers, read for a transcript judged in `windows`
    /// windows.
    pub fn new(inner: &'a J, windows: usize) -> Self {
        Windowed { inner, windows }
    }
}

impl<J: pactum_eval::Judgments> pactum_eval::Judgments for Windowed<'_, J> {
    fn configured(&self) -> bool {
        self.inner.configured()
    }

    fn answer(
        &self,
        contract_id: &str,
        clause_id: &str,
    ) -> Option<pactum_core::judge::JudgeAnswer> {
        use pactum_core::judge::JudgeAnswer;
        let a = self.inner.answer(contract_id, clause_id)?;
        Some(match a {
            JudgeAnswer::Graded {
                verdict: Verdict::Satisfied | Verdict::PartiallySatisfied,
                ..
            } if self.windows > 1 => JudgeAnswer::Failed {
                reason: NotEvaluableReason::TranscriptTooLong,
                detail: format!(
                    "the outputs were judged in {} windows, and a judge that finds a commitment kept in one window does not say it was kept in the others: an output this long is not taken as keeping a judged clause",
                    self.windows
                ),
            },
            other => other,
        })
    }
}

/// Grades judged clauses with no judge configured (`no-judge`).
pub fn no_judge(policy: Policy) -> impl FnMut(&CompiledContract, &Trace) -> ContractResult {
    move |c, t| c.grade(t, &policy, &pactum_eval::NoJudge)
}

/// The pactum contract and transcript a judge grades for one run
/// contract: required clauses with the judge rubric, one turn per produced
/// output (its input: the contract's inputs, then which output follows;
/// its response: the binding, verbatim), so a quote must come from a
/// binding and text only repeated from the inputs backs nothing.
pub fn judge_inputs(
    c: &RunContract,
    clauses: &[(String, String)],
) -> Option<(CompiledContract, Trace)> {
    let required = clauses
        .iter()
        .map(|(id, rubric)| Clause {
            id: id.clone(),
            text: rubric.clone(),
            severity: Severity::Medium,
            check: None,
            judge: Some(rubric.clone()),
        })
        .collect();
    let contract = Contract {
        version: CONTRACT_SCHEMA_VERSION,
        id: c.name.clone(),
        description: None,
        select: None,
        required,
        prohibited: vec![],
        conditional: vec![],
        simulated_user_objective: None,
        adversarial: false,
        source_notes: vec![],
    };
    let digest = pactum_core::digest::digest_of(&contract);
    let compiled = CompiledContract::compile(contract, digest).ok()?;
    let mut turns = Vec::new();
    for (i, b) in produced(c).enumerate() {
        let mut input = Vec::new();
        if i == 0 {
            for inp in &c.inputs {
                input.push(Message {
                    role: Role::User,
                    content: format!(
                        "input `{}`:\n{}",
                        inp.name,
                        inp.content.as_deref().unwrap_or("")
                    ),
                });
            }
        }
        input.push(Message {
            role: Role::User,
            content: format!("output `{}` ({}):", b.name, b.path),
        });
        turns.push(Turn {
            input,
            response: b.content.clone(),
            ..Turn::default()
        });
    }
    let trace = Trace {
        id: c.name.clone(),
        observability: ObservabilityLevel::ResponseOnly,
        turns,
        metadata: serde_json::Value::Null,
        error: None,
        incomplete: None,
        ended_by: None,
        source: None,
        offered_tools: None,
    };
    Some((compiled, trace))
}

/// Whether an output shows nothing: it renders as nothing, or as a
/// placeholder ([`crate::check::renders_nothing`]).
fn shows_nothing(t: &str) -> bool {
    crate::check::renders_nothing(t)
}

/// The outputs of `c` that were produced (a binding that shows
/// something), in order.
fn produced(c: &RunContract) -> impl Iterator<Item = &Binding> {
    c.outputs
        .iter()
        .filter(|b| b.content.as_deref().is_some_and(|t| !shows_nothing(t)))
}

/// What grading one clause needs settled before the judge runs.
enum Pending {
    Done(ClauseResult),
    /// Needs the judge: the rubric, and the note of what was measured.
    Judge {
        rubric: String,
        note: String,
    },
    /// Held by measure alone: a measure counts what is written, not what
    /// it means (a made-up row, a field reading "unknown" in another
    /// language), so with a judge configured the judge reads it too, and
    /// only its `satisfied` keeps the green; without one, the measured
    /// verdict stands and the report lists it as measured only.
    Confirm {
        measured: ClauseResult,
        rubric: String,
    },
}

fn head<'a>(id: &'a str, text: &'a str, conditional: bool) -> ClauseHead<'a> {
    ClauseHead {
        id,
        kind: ClauseKind::Required,
        conditional,
        text,
        severity: Severity::Medium,
    }
}

fn quote(turn: usize, text: &str) -> Evidence {
    Evidence::Quote {
        turn,
        source: "response".into(),
        text: truncate_chars(text, QUOTE_CHARS),
    }
}

fn settled(h: ClauseHead<'_>, held: bool, evidence: Vec<Evidence>, why: String) -> ClauseResult {
    let outcome = if held {
        Outcome::Detected
    } else {
        Outcome::NotDetected
    };
    grade_clause(
        h,
        Evaluation::settled(outcome, evidence, why),
        NotEvaluableReason::Undetermined,
    )
}

fn not_evaluable(
    h: ClauseHead<'_>,
    reason: NotEvaluableReason,
    why: String,
    suggestion: Option<String>,
) -> ClauseResult {
    let mut r = grade_clause(h, Evaluation::undetermined("clause", why, None), reason);
    if reason != NotEvaluableReason::Undetermined {
        r.undetermined_operands.clear();
    }
    if let Some(s) = suggestion {
        r.suggestion = Some(s);
    }
    r
}

fn not_triggered(h: ClauseHead<'_>, why: String) -> ClauseResult {
    ClauseResult {
        id: h.id.to_string(),
        kind: h.kind,
        conditional: h.conditional,
        text: h.text.to_string(),
        severity: h.severity,
        verdict: Verdict::NotTriggered,
        confidence: 100,
        outcome: Outcome::NotDetected,
        evidence: vec![],
        rationale: why,
        undetermined_operands: vec![],
        discounted_echoes: vec![],
        reason: None,
        suggestion: None,
    }
}

/// Recorded errors as a report names them: each one's name, where it was
/// recorded, and its message, one line and bounded.
fn recorded(errors: &[&RunError]) -> String {
    errors
        .iter()
        .map(|e| {
            let message = one_line(&e.message, 200);
            if message.is_empty() || message == e.name {
                format!("`{}` ({})", truncate_chars(&e.name, 80), e.source)
            } else {
                format!(
                    "`{}` ({}: \"{message}\")",
                    truncate_chars(&e.name, 80),
                    e.source
                )
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The verdict of an ordinary clause of a contract that did not finish:
/// `crashed` are the recorded errors it does not declare (a crash, an
/// aborted run): failing outside its declared errors breaks the contract,
/// so the clause is `violated` whatever the bindings hold; `unhandled`
/// also holds declared errors no conditional clause answers: the clause
/// describes a success that did not happen, so it is `not_evaluable`.
/// `None` when the contract finished, or every error was answered.
fn unfinished(
    h: ClauseHead<'_>,
    c: &RunContract,
    crashed: &[&RunError],
    unhandled: &[&RunError],
) -> Option<ClauseResult> {
    let list = |errors: &[&RunError]| recorded(errors);
    if !crashed.is_empty() {
        return Some(settled(
            h,
            false,
            vec![],
            format!(
                "`{}` did not finish: the run recorded {}, an error its contract does not declare; failing outside its declared errors breaks the contract, whatever its bindings hold",
                c.name,
                list(crashed)
            ),
        ));
    }
    if let Some(end) = unhandled.iter().find(|r| r.ends_run) {
        return Some(not_evaluable(
            h,
            NotEvaluableReason::Undetermined,
            format!(
                "the run did not end cleanly: its log ends with an error ({}); a run that did not end is never satisfied, whatever degraded output it left",
                list(&[end])
            ),
            Some("keep the run's vm.log.md and workspace/ folders, and grade a run that ended (`---end`)".into()),
        ));
    }
    if !unhandled.is_empty() {
        return Some(not_evaluable(
            h,
            NotEvaluableReason::Undetermined,
            format!(
                "`{}` failed with {}, a declared error no conditional clause answers: the clause describes a success that did not happen",
                c.name,
                list(unhandled)
            ),
            Some(format!(
                "state what the output holds when it fails that way (`- if {}: …`)",
                error_key(&unhandled[0].name)
            )),
        ));
    }
    None
}

/// Grades one clause's text over its target outputs (steps 1–3 of the
/// module docs); a clause needing the judge comes back `Pending::Judge`.
/// What is found once per output of a contract, whatever the clause:
/// whether its shown text is only a copy, and why its measures are no
/// evidence on their own (each reads the whole program, so finding them
/// again for every clause would be quadratic in the clauses).
#[derive(Default)]
struct Memo {
    copied: BTreeMap<String, bool>,
    unseen: BTreeMap<String, Option<String>>,
    declines: BTreeMap<String, Option<String>>,
    named_pages: Option<String>,
}

impl Memo {
    /// The URLs the contract's own source names, one a line, read once
    /// (empty when it names none).
    fn named_pages(&mut self, c: &RunContract) -> String {
        self.named_pages
            .get_or_insert_with(|| {
                crate::check::urls(&c.source_text)
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .clone()
    }

    /// [`declines`] of a binding, read once.
    fn declines(&mut self, b: &Binding, content: &str) -> Option<String> {
        self.declines
            .entry(b.path.clone())
            .or_insert_with(|| declines(content))
            .clone()
    }

    fn copied(
        &mut self,
        b: &Binding,
        content: &str,
        inputs: &[Cow<'_, str>],
        c: &RunContract,
    ) -> bool {
        *self.copied.entry(b.path.clone()).or_insert_with(|| {
            // Numbers or booleans beside a copy may be the answer (a
            // score): that copy is the judge's ([`Memo::unseen`]).
            copy_of_input(&shown_text(content), inputs, c) && !beside_scalars(content)
        })
    }

    fn unseen(
        &mut self,
        b: &Binding,
        content: &str,
        inputs: &[Cow<'_, str>],
        c: &RunContract,
    ) -> Option<String> {
        self.unseen
            .entry(b.path.clone())
            .or_insert_with(|| {
                // A `.json` binding is read as JSON by its consumers:
                // text that is no strict JSON value is not what they read.
                if b.json
                    && crate::check::as_json(content).is_none()
                    && !crate::json_view::near_json(content)
                {
                    return Some("it is a `.json` binding that holds no strict JSON value: what a reader of it reads is for the judge".into());
                }
                if beside_scalars(content) && copy_of_input(&shown_text(content), inputs, c) {
                    return Some("its string values only repeat what the service was given, beside numbers or booleans: whether those are its own answer is for the judge".into());
                }
                if let Some(why) = copy_beside_tokens(content, inputs, c) {
                    return Some(why);
                }
                unseen(content, inputs, c)
            })
            .clone()
    }
}

fn grade_text(
    h: ClauseHead<'_>,
    c: &RunContract,
    clause: &DeclaredClause,
    turns: &BTreeMap<String, usize>,
    memo: &mut Memo,
) -> Pending {
    // Which outputs the clause is about.
    let targets: Vec<&Binding> = match &clause.output {
        Some(o) => c.output(o).into_iter().collect(),
        // A clause that opens like a name pactum did not read as one
        // (`Executive summary: …`) may be about another output than the
        // only one there is: never measured on it.
        None if c.outputs.len() == 1 && !opens_like_a_name(&clause.text) => {
            c.outputs.iter().collect()
        }
        None if c.outputs.len() == 1 => Vec::new(),
        None => produced(c).collect(),
    };
    let mut sparse = None;
    if let Some(o) = &clause.output {
        match c.output(o) {
            // `Format: …` opening a sentence may be a label: left to the
            // judge over what was produced, never measured.
            None if clause.label && produced(c).next().is_some() => {
                return Pending::Judge {
                    rubric: format!("The outputs satisfy: {}", clause.text),
                    note: format!("the sentence opens with `{o}:`, which names no output of the contract: a label, not measured"),
                };
            }
            None => {
                return Pending::Done(settled(
                    h,
                    false,
                    vec![],
                    format!("output `{o}` has no binding: it was not produced"),
                ))
            }
            Some(b) => match b.content.as_deref() {
                None => {
                    return Pending::Done(settled(
                        h,
                        false,
                        vec![],
                        format!("no binding file {}: output `{o}` was not produced", b.path),
                    ))
                }
                Some(t) if shows_nothing(t) => {
                    // An empty JSON value or `N/A` alone may be the
                    // answer: measured, and else left to the judge.
                    if let Some(kind) = crate::check::sparse_answer(t) {
                        sparse = Some(kind);
                    } else {
                        return Pending::Done(settled(
                            h,
                            false,
                            vec![],
                            format!("{} renders as nothing (blank, markup or hidden content only, an empty JSON value, a placeholder such as TODO): output `{o}` was not produced", b.path),
                        ));
                    }
                }
                Some(_) => {}
            },
        }
    } else if produced(c).next().is_none() {
        return Pending::Done(settled(
            h,
            false,
            vec![],
            "the contract produced no output at all".into(),
        ));
    } else if targets.is_empty() {
        let head = name_head(&clause.text).unwrap_or_default();
        return Pending::Done(settled(
            h,
            false,
            vec![],
            format!(
                "the clause opens like an output name (`{}`) that pactum does not read as one (a name is letters, digits, `_`, `-` and `.`): it may be about another output than the one produced, so it is measured on none",
                truncate_chars(head.trim().trim_matches('`'), 80)
            ),
        ));
    }
    let single = match targets.as_slice() {
        [b] => b.content.as_deref().map(|t| (*b, t)),
        _ => None,
    };
    let mut text = clause.description.clone();
    for s in &clause.sub {
        text.push_str("; ");
        text.push_str(s);
    }
    let reading = read(&text);
    let mut notes = Vec::new();
    let mut evidence = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    let mut unmeasured: Vec<String> = Vec::new();
    let mut names_another = false;
    // A clause on one output naming another (`` - `report`: … `` / `  -
    // The summary: at least 9 words`): which output each measure is about
    // is the judge's, never the parent's binding by default.
    if let (Some(own), false) = (&clause.output, reading.measures.is_empty()) {
        // A name inside a measured phrase is its unit or format (`at
        // least 3 sources`, `a JSON array`), not another output.
        let mut unmeasured_text = text.clone();
        for (phrase, _) in &reading.measures {
            unmeasured_text = unmeasured_text.replacen(phrase.as_str(), " ", 1);
        }
        let other = c
            .outputs
            .iter()
            .map(|b| b.name.as_str())
            .chain(
                c.declared
                    .clauses
                    .iter()
                    .filter_map(|k| k.output.as_deref()),
            )
            .filter(|o| crate::contract::binding_key(o) != crate::contract::binding_key(own))
            .find(|o| crate::contract::mentions_name(&unmeasured_text, o));
        if let Some(o) = other {
            unmeasured.push(format!(
                "the clause on `{own}` names another output, `{o}`: which output each measure is about is for the judge"
            ));
            names_another = true;
        }
    }
    let mut inputs: Vec<Cow<'_, str>> = c
        .inputs
        .iter()
        .filter_map(|i| i.content.as_deref().map(Cow::Borrowed))
        .collect();
    // A page the service's own contract names was given to it, as an
    // input's is: copied into the output, it is no source found.
    let named = memo.named_pages(c);
    if !named.is_empty() {
        inputs.push(Cow::Owned(named));
    }
    if let Some((b, content)) = single {
        notes.push(format!("{} exists", b.path));
        // An output that is nothing but copied input is no output of its
        // own: no measure of it, not even existence, is evidence (SPEC
        // §3.4, `pactum_core::echo::only_copied`).
        if memo.copied(b, content, &inputs, c) {
            return Pending::Done(settled(
                h,
                false,
                vec![],
                format!("{} holds nothing but text copied from the service's input or its own source: a copy is no output of its own", b.path),
            ));
        }
        let turn = turns.get(&b.name).copied().unwrap_or(1);
        for (phrase, m) in &reading.measures {
            let Finding {
                held,
                detail,
                quote: q,
            } = measure_against(m, content, &inputs);
            if let Some(q) = q.filter(|q| !q.is_empty() && content.contains(q.as_str())) {
                evidence.push(quote(turn, &q));
            }
            match held {
                Some(true) => match crate::plain::held_unread(m, content) {
                    Some(why) => unmeasured.push(format!("\"{phrase}\": {why}")),
                    None => notes.push(format!("\"{phrase}\": {detail}")),
                },
                Some(false) => failed.push(format!("\"{phrase}\": {detail}")),
                None => unmeasured.push(format!("\"{phrase}\": {detail}")),
            }
        }
        if let Some(why) = memo.unseen(b, content, &inputs, c) {
            unmeasured.push(format!("{}: {why}", b.path));
        }
        if let Some(why) = crate::check::format_and_count_apart(&reading.measures, content) {
            unmeasured.push(format!("{}: {why}", b.path));
        }
        if asks_for_content(&reading.measures) && !asked_alone(&reading.measures, content) {
            if let Some(why) = memo.declines(b, content) {
                unmeasured.push(format!("{}: {why}", b.path));
            } else if let Some(why) = nothing_of_its_own(content, &clause.description) {
                unmeasured.push(format!("{}: {why}", b.path));
            }
        }
        // A data file (YAML, TOML, CSV, XML…) is read by its consumers
        // as data: `#` starts a comment there, not a heading. pactum reads
        // Markdown and JSON only.
        if let Some(ext) = data_extension(&b.path) {
            unmeasured.push(format!("{}: a `.{ext}` output is data its consumers parse (comments dropped, fields apart), which pactum does not read as such: whether it keeps the clause is for the judge", b.path));
        }
        // That an output exists is evidence of it only where it holds
        // text enough to be read as one: one word (`Ellipsis`,
        // `context_length_exceeded`, `Optional[str]`) may be anything.
        if reading.measures.is_empty() && !reading.vague {
            if let Some(why) = too_short(content) {
                unmeasured.push(format!("{}: {why}", b.path));
            }
        }
        // An output this sparse is produced, but whether it is the
        // answer the clause asks for ("a JSON object with the report"
        // over `{}`) only the judge can tell: a measure that held over it
        // backs no green.
        if let Some(kind) = sparse {
            unmeasured.push(format!(
                "{} holds {}: whether that is the output the clause asks for is for the judge",
                b.path,
                match kind {
                    Sparse::EmptyJson => "only an empty JSON value",
                    Sparse::ShortValue => "only a short value such as N/A or Pending",
                }
            ));
        }
    } else if !reading.measures.is_empty() {
        unmeasured.push(format!(
            "the clause names no output and the contract has {} outputs: its measures cannot be taken",
            targets.len()
        ));
    } else if !targets.is_empty()
        && targets
            .iter()
            .filter_map(|b| b.content.as_deref().map(|t| (*b, t)))
            .filter(|(_, t)| !shows_nothing(t))
            .all(|(b, t)| memo.copied(b, t, &inputs, c))
    {
        return Pending::Done(settled(
            h,
            false,
            vec![],
            "every output of the contract holds nothing but text copied from its input or its own source: a copy is no output of its own".into(),
        ));
    } else {
        notes.push("the contract produced output".into());
        for b in &targets {
            if let Some(why) = b
                .content
                .as_deref()
                .and_then(|t| memo.unseen(b, t, &inputs, c))
            {
                unmeasured.push(format!("{}: {why}", b.path));
            }
        }
    }
    // Phrases that look measurable but were not read (a choice, a count
    // per item, a reversed range) leave the clause to the judge.
    unmeasured.extend(reading.unread.iter().cloned());
    // A measure that failed may be about the other output the clause
    // names (`at least 10 words, and the report at least 90 words`).
    if names_another {
        unmeasured.append(&mut failed);
    }
    if !failed.is_empty() {
        let mut why = failed.join("; ");
        if !notes.is_empty() {
            why = format!("{why} (held: {})", notes.join("; "));
        }
        return Pending::Done(settled(h, false, evidence, why));
    }
    // Nothing asked beyond what was measured. A clause of generic words
    // only ("`summary`: a summary") asks for what its name names: that
    // the output exists is measured (its absence is a violation), that
    // it is a summary and not a placeholder, a non-answer or filler is a
    // reading of its meaning, which no list of words closes. Existence
    // alone backs no green: the judge's (SPEC §3.5, a pass needs
    // evidence).
    if unmeasured.is_empty() && reading.residual.is_empty() {
        // Only a measure that asks for content (a quote, fields, a lower
        // bound at its floor) backs a green: a format, an upper bound, a
        // negation or a low bound that held ("a bulleted list", "of at
        // most 200 words", "at least 2 words") is kept by "- Done." or
        // "I have no idea." as well.
        if !reading.measures.is_empty() && asks_for_content(&reading.measures) {
            return Pending::Confirm {
                measured: settled(h, true, evidence, notes.join("; ")),
                rubric: rubric_of(clause, &text),
            };
        }
        let low = reading
            .measures
            .iter()
            .any(|(_, m)| matches!(m, Measure::Count { min, .. } if *min > 0));
        let shaped = reading.measures.iter().any(|(_, m)| m.is_shape());
        unmeasured.push(if reading.measures.is_empty() {
            "the clause asks only for what its output's name names: that the output exists is no evidence that it is that (rather than a placeholder, a non-answer or filler), which is for the judge".into()
        } else if low {
            "what held asks for no more than a short note has (fewer than ten words, three paragraphs or two items, rows or headings), which a placeholder or a non-answer (\"I have no idea.\") has as well: that the output is what its name names is for the judge".to_string()
        } else if shaped {
            "what held is a shape (a format, a list, a table, headings, JSON), which a placeholder or a non-answer (`- Done.`) has as well: that the output is what its name names is for the judge".to_string()
        } else {
            "what held only bounds the output from above or forbids something, which a placeholder, a non-answer or filler keeps as well: that the output is what its name names is for the judge".to_string()
        });
    }
    if reading.vague && unmeasured.is_empty() {
        let why = format!(
            "too vague to grade either way: \"{}\" states no content, format or count{}",
            reading.residual.join(" "),
            if notes.is_empty() {
                String::new()
            } else {
                format!(" (held: {})", notes.join("; "))
            }
        );
        return Pending::Done(not_evaluable(
            h,
            NotEvaluableReason::Vague,
            why,
            Some(suggest_rewrite(&clause.description)),
        ));
    }
    notes.extend(unmeasured);
    Pending::Judge {
        rubric: rubric_of(clause, &text),
        note: notes.join("; "),
    }
}

/// The judge's rubric for a clause whose text (with its sub-items) is
/// `text`.
fn rubric_of(clause: &DeclaredClause, text: &str) -> String {
    match &clause.output {
        Some(o) => format!("The output `{o}` satisfies: {text}"),
        None => format!("The outputs satisfy: {text}"),
    }
}

/// Why a judge's answer for `clause` backs nothing (SPEC §3.4,
/// `fabricated-evidence`): a quote from another output than the
/// clause's, one only in text that does not render, one copied from the
/// inputs, or one that only restates the clause. `None` when its quotes
/// stand.
fn unfounded(
    r: &ClauseResult,
    clause: &DeclaredClause,
    c: &RunContract,
    turns: &BTreeMap<String, usize>,
) -> Option<String> {
    foreign_quote(r, clause, c, turns)
        .or_else(|| hidden_quote(r, clause, c))
        .or_else(|| copied_quote(r, c))
        .or_else(|| restated_quote(r, clause, c))
}

/// What to do about a judge's quote that backs nothing.
const FABRICATED_HINT: &str = "the judge must quote the output the clause is about: re-run, or state the clause in a phrasing pactum measures (docs/openprose.md)";

/// The rationale of a measured green no judge read.
const MEASURED_ONLY: &str = "held as measured, and no judge read what was measured (a measure counts what is written, not what it means)";

/// Whether a clause's text opens with a short label and a colon or a dash
/// (`Executive summary: …`, `the report (final): …`, `findings - …`): it
/// may name an output.
fn opens_like_a_name(text: &str) -> bool {
    let Some(head) = name_head(text) else {
        return false;
    };
    let words = head.split_whitespace().count();
    let lower = head.trim().to_ascii_lowercase();
    (1..=4).contains(&words)
        && !lower.starts_with("each ")
        && !lower.starts_with("if ")
        && !head.contains(['"', '\u{201c}'])
}

/// What a clause opens with before `name: …`, or `name - …` / `name –
/// …` / `name — …`: the shortest such head.
fn name_head(text: &str) -> Option<&str> {
    // A URL's scheme (`See https://…`) is no label.
    let colon = text
        .match_indices(':')
        .find(|(i, _)| !text[i + 1..].starts_with("//"))
        .map(|(i, _)| &text[..i]);
    let dash = [" - ", " – ", " — "]
        .iter()
        .filter_map(|d| text.split_once(d).map(|(h, _)| h))
        .min_by_key(|h| h.len());
    [colon, dash].into_iter().flatten().min_by_key(|h| h.len())
}

/// Whether `content` is nothing but a copy of what the service was given
/// (SPEC §3.4): of one of its `inputs`, or of its own source file (the
/// program text: a copy of it shows its headings, bullets and the
/// clauses' own quotes). Saying exactly a text a clause quotes ("says
/// \"no sources were found\"") is doing what was asked, not copying the
/// source.
/// `s` as the copy rule compares it: accents and other combining marks
/// dropped, then read as a reader tells texts apart
/// ([`crate::rendered::lookalike_fold`]: fullwidth, mathematical and
/// look-alike letters are the letters they look like).
fn copy_fold(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let bare: String = s
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect();
    crate::rendered::lookalike_fold(&bare)
}

/// Whether `shown` ([`shown_text`]) is only a copy of what the service
/// was given ([`only_copied_input`]), read as written or with
/// look-alike letters and accents folded ([`copy_fold`]).
fn copy_of_input(shown: &str, inputs: &[Cow<'_, str>], c: &RunContract) -> bool {
    if only_copied_input(shown, inputs, c) {
        return true;
    }
    let folded: Vec<Cow<'_, str>> = inputs.iter().map(|i| Cow::Owned(copy_fold(i))).collect();
    pactum_core::echo::only_copied(&copy_fold(shown), &folded)
}

/// Why a JSON output's prose is no text of its own: its prose string
/// values only repeat what the service was given (copied, pieced or
/// reordered), beside short token-like values
/// ([`crate::json_view::prose_beside_tokens`]: an id, a model name, a
/// status word, a timestamp). Those are metadata like numbers and
/// booleans: they may be an answer, so the clause is the judge's, but
/// they make the copy no summary of the service's own.
fn copy_beside_tokens(content: &str, inputs: &[Cow<'_, str>], c: &RunContract) -> Option<String> {
    let prose = crate::json_view::prose_beside_tokens(&crate::check::as_json(content)?)?;
    let program = QUOTED.replace_all(&c.source_text, " \u{1} ");
    let texts: Vec<&str> = inputs.iter().map(|i| &**i).collect();
    (copy_of_input(&prose, inputs, c) || crate::check::rearranged_copy(&prose, &texts, &program))
        .then(|| "its prose string values only repeat what the service was given, beside short values such as ids, codes, dates or status words: whether those are its own answer is for the judge".into())
}

/// Whether `content` is a JSON value holding a number or a boolean.
fn beside_scalars(content: &str) -> bool {
    crate::check::as_json(content).is_some_and(|v| crate::json_view::scalars(&v))
}

/// What `content` shows, for the copy rule: a JSON value's decoded
/// string values (its keys, numbers, booleans and `null` are structure,
/// no words of the service's own), or the text with what is hidden when
/// it renders left out.
fn shown_text(content: &str) -> Cow<'_, str> {
    match crate::check::as_json(content) {
        Some(v) => Cow::Owned(crate::json_view::said(&v)),
        None => crate::check::without_hidden(content),
    }
}

fn only_copied_input(content: &str, inputs: &[Cow<'_, str>], c: &RunContract) -> bool {
    use pactum_core::echo::only_copied;
    if only_copied(content, inputs) {
        return true;
    }
    // Pieces of several inputs, an input repeated, an input and the
    // program's own text: copied all the same. The texts the clauses
    // quote are taken out of the program first: saying them is what was
    // asked.
    let program = QUOTED.replace_all(&c.source_text, " \u{1} ");
    let mut texts: Vec<&str> = inputs.iter().map(|i| &**i).collect();
    texts.push(&program);
    if crate::check::pieced_copy(content, &texts) {
        return true;
    }
    if !only_copied(content, &[Cow::Borrowed(&*c.source_text)]) {
        return false;
    }
    let asked: Vec<Cow<'_, str>> = asked_texts(c).into_iter().map(Cow::Owned).collect();
    !only_copied(content, &asked) && !asked_joined(content, &asked)
}

/// Whether `content` says the texts the clauses quote, joined only by
/// function words and marks (`Daikin and Bosch.` for `saying "Daikin"
/// and "Bosch"`): that is what was asked, not a copy of the program.
fn asked_joined(content: &str, asked: &[Cow<'_, str>]) -> bool {
    let mut rest = content.to_lowercase();
    let mut found = false;
    for a in asked {
        let a = a.trim().to_lowercase();
        if !a.is_empty() && rest.contains(&a) {
            rest = rest.replace(&a, " ");
            found = true;
        }
    }
    found
        && rest
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .all(crate::plain::is_function_word)
}

/// Why an output's measures holding is no evidence on their own
/// (they still fail it when they fail): a part a reader does not see
/// ([`crate::check::unseen_part`]), or a body ([`crate::check::body_text`])
/// that only repeats what the service was given, under a heading of its
/// own, as link text, or reordered ([`crate::check::rearranged_copy`]).
/// The clause goes to the judge, or is not evaluable without one.
fn unseen(content: &str, inputs: &[Cow<'_, str>], c: &RunContract) -> Option<String> {
    if let Some(why) = crate::check::unseen_part(content) {
        return Some(why);
    }
    if let Some(why) = crate::plain::unread_form(content) {
        return Some(why);
    }
    if let Some(why) = error_report(content) {
        return Some(why);
    }
    let body = match crate::check::as_json(content) {
        Some(v) => crate::json_view::said(&v),
        None => crate::check::body_text(content),
    };
    if pactum_core::echo::words(&body).is_empty() {
        return None;
    }
    let program = QUOTED.replace_all(&c.source_text, " \u{1} ");
    let texts: Vec<&str> = inputs.iter().map(|i| &**i).collect();
    (only_copied_input(&body, inputs, c) || crate::check::rearranged_copy(&body, &texts, &program))
        .then(|| "its text only repeats what the service was given (copied under a heading or as link text, reordered, or with the program's own words added): whether it is the service's own work is for the judge".to_string())
}

/// Whether a clause's measures ask for content, not only shape or
/// bounds: a lower bound at or above its unit's floor
/// ([`fewest_for_content`]), a quote of two words or more, or fields
/// every item has. A refusal, a placeholder or a short non-answer is no
/// content, but it keeps an upper bound, a prohibition and a format
/// (`- Done.` is a bulleted list, `{"result": "done"}` a JSON object),
/// and it meets a lower bound below the floor ("I have no idea." has
/// four words, two such lines two paragraphs): none of these asks for
/// more than that the output exists, which backs no green (SPEC §3.5).
fn asks_for_content(measures: &[(String, Measure)]) -> bool {
    measures.is_empty()
        || measures.iter().any(|(_, m)| match m {
            Measure::Count { unit, min, .. } => *min >= fewest_for_content(unit),
            // One word said alone (`mentioning "Daikin"` over `Daikin`) is
            // a name, not the summary or note the clause asks for.
            Measure::Contains(q) => q.split_whitespace().count() >= 2,
            Measure::Each { .. } => true,
            // A shape or a negation is kept by a non-answer too; a
            // measure not named here asks for no content either.
            _ => false,
        })
}

/// The fewest units a lower bound must ask for to ask for content: ten
/// words (a sentence saying there is nothing has fewer: "The requested
/// information could not be found."), three paragraphs, two items, rows
/// or headings (`- Done.` is one item), one source (a link is read for
/// where it leads, never for its words).
fn fewest_for_content(unit: &Unit) -> u64 {
    match unit {
        Unit::Words => 10,
        Unit::Paragraphs => 3,
        Unit::Items | Unit::Rows | Unit::Headings => 2,
        Unit::Sources => 1,
    }
}

/// Whether the output is, alone, a text the clause asks it to say
/// (`saying "no sources were found"` over `No sources were found.`).
fn asked_alone(measures: &[(String, Measure)], content: &str) -> bool {
    measures.iter().any(|(_, m)| match m {
        Measure::Contains(q) => crate::check::only_the_quote(content, q),
        _ => false,
    })
}

/// The extension of a binding written in a data format pactum does not
/// parse (`yaml`, `yml`, `toml`, `csv`, `tsv`, `xml`, `ini`, `jsonl`…):
/// only Markdown, plain text and JSON are read.
fn data_extension(path: &str) -> Option<String> {
    let ext = std::path::Path::new(path)
        .extension()?
        .to_str()?
        .to_ascii_lowercase();
    (!matches!(ext.as_str(), "md" | "markdown" | "txt" | "json" | "text")).then_some(ext)
}

/// Fewest words of prose (letters, not numbers or code) an output must
/// hold for its existence alone to stand for a clause ([`too_short`]).
const FEWEST_WORDS: usize = 2;

/// Why an output is too short for its existence to be evidence: fewer
/// than [`FEWEST_WORDS`] words holding a letter, a word written like a
/// program's name (`snake_case`, `a.b[0].c`) not counted.
fn too_short(content: &str) -> Option<String> {
    let text = match crate::check::as_json(content) {
        Some(v) => crate::json_view::said(&v),
        None => crate::check::body_text(content),
    };
    let words = text
        .split_whitespace()
        .filter(|w| {
            w.chars().any(char::is_alphabetic)
                && !w.contains(['_', '[', ']', '(', ')', '$', '%', '{', '}', '<', '>'])
                && !(w.contains('.')
                    && w.trim_end_matches(['.', ',', ';', ':', '!', '?'])
                        .contains('.'))
        })
        .count();
    (words < FEWEST_WORDS).then(|| format!("the output holds {words} word(s) of prose: whether that is the output asked for is for the judge"))
}

/// Most words an output may hold and still be read, whole, as a note
/// that it has nothing ([`declines`]).
const SHORT_OUTPUT_WORDS: usize = 40;

/// How much of a longer output's text [`declines`] reads for such a
/// note, in characters.
const OPENING_CHARS: usize = 200;

/// Why an output's own text is no evidence of content, links aside: it
/// holds no word under its headings (`# Introduction` / `# Conclusion`),
/// or none beside its links where the clause names prose (`a summary
/// with at least 1 source` over a bare link); or every sentence of it only
/// says there is nothing or points elsewhere
/// ([`crate::check::says_nothing`]: `Done. https://…`, `See https://…`,
/// `Source: https://…`). Whether it is the output asked for is the
/// judge's.
fn nothing_of_its_own(content: &str, clause: &str) -> Option<String> {
    static PROSE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)\b(?:summary|summaries|report|note|answer|brief|overview|description|analysis|explanation|essay|article|text|paragraphs?|prose|sentences?)\b").unwrap()
    });
    static HEADING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?m)^ {0,3}#{1,6}\s+\S|^ {0,3}(?:=+|-+)\s*$").unwrap()
    });
    let json = crate::check::as_json(content);
    let text = match &json {
        Some(v) => crate::json_view::said(v),
        None => crate::check::body_text(content),
    };
    let own = crate::check::without_urls(&text);
    let words = own
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    if words == 0 {
        if json.is_none() && HEADING.is_match(content) {
            return Some("the output shows headings with no text under them: whether it is the output asked for is for the judge".into());
        }
        return PROSE.is_match(clause).then(|| "links aside, the output holds no text of its own, where the clause asks for prose: whether it is the output asked for is for the judge".into());
    }
    // Links introduced as what they are (`See …`, `Sources: …`) are the
    // sources a bare count asks for; beside prose asked for, or beside a
    // note that there is nothing, they are no evidence of it.
    static POINTER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)^\W*(?:see|siehe|voir|ver|véase|vedi|veja|zie|sources?|quellen|fuentes|fonti|fontes|bronnen|links?|references?|read more|more at|details)\b").unwrap()
    });
    let sentences: Vec<&str> = own
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let own = sentences.join(". ");
    (crate::check::says_nothing(&own) && (PROSE.is_match(clause) || !POINTER.is_match(&own))).then(|| "links aside, the output only says there is nothing or points elsewhere (`Done.`, `See …`): whether it is the output asked for is for the judge".into())
}

/// Why an output reads as declining the task rather than doing it: the
/// refusal detector (`pactum_eval::refusal`) finds a refusal, full or
/// partial (where it cannot tell, as over a list of names or URLs, it
/// is not taken for one); or a short output (at most
/// [`SHORT_OUTPUT_WORDS`] words), or a longer one's opening
/// ([`OPENING_CHARS`]), says it has nothing or could not do it (`Summary
/// unavailable.`, `No summary could be generated.`, `The model returned
/// an empty response.`, `I was unable to find sources`, `Sorry`). Whether such an output is the one asked for is
/// the judge's: an output that exists is no evidence on its own.
fn declines(content: &str) -> Option<String> {
    use pactum_core::contract::RefusalKind;
    use pactum_core::outcome::Outcome;
    static NOTHING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(concat!(
            r"(?i)\b(?:no|none|nothing|zero)\b[^.!?\n]{0,40}?\b(?:found|available|generated|produced|returned|given|provided|written|created|to report|could be|can be)\b",
            r"|\b(?:unavailable|not (?:available|generated|produced|provided|found|written))\b",
            r"|\b(?:cannot|can['’]t|could not|couldn['’]t|unable to|failed to|did not|didn['’]t|was not able to|wasn['’]t able to)\s+(?:\w+\s+){0,3}?(?:generate|produce|provide|create|write|find|complete|summari[sz]e|answer|access|retrieve|browse|fetch|load|get|do|help)\b",
            r"|\bempty (?:response|output|result|answer|reply)\b|\b(?:sorry|apologi[sz]e)\b|\bas an ai\b",
            // A failure written into the output: a process, a request or
            // a provider's limit.
            r"|\b(?:failed|failure|fault|killed|timed out|timeout|exceeded|exception|fatal|panic(?:ked)?|aborted|crash(?:ed)?|unauthori[sz]ed|forbidden|too many requests|rate.?limit(?:ed)?|internal server error|bad gateway|service unavailable|not found)\b",
            r"|\b(?:status(?: code)?|http|error code)\s*:?\s*[45]\d\d\b|\b[45]\d\d (?:too many|not found|internal|bad|service|forbidden|unauthori[sz]ed)",
            r"|\b(?:connection refused|out of memory|exit(?:ed)? (?:status|code|with code)|sig(?:kill|term|segv)|overloaded|try again later|no (?:output|data|content|response|results?)\b|blocked|usage polic(?:y|ies)|content polic(?:y|ies)|safety (?:filter|system)s?|cancel(?:l)?ed|interrupted)\b",
        ))
        .unwrap()
    });
    let json = crate::check::as_json(content);
    if json
        .as_ref()
        .is_some_and(crate::json_view::empty_beside_metadata)
    {
        return Some("the JSON output leaves a field empty and fills only metadata (ids, model names, status words): whether it holds the output asked for is for the judge".into());
    }
    let text = match json {
        Some(v) => crate::json_view::said(&v),
        None => crate::check::body_text(content),
    };
    let head: String = text.chars().take(20_000).collect();
    let judged = pactum_eval::refusal::classify(&head);
    if judged.outcome(RefusalKind::Any) == Outcome::Detected {
        return Some(match judged.cue {
            Some(cue) => format!(
                "the output may decline the task (`{}`): whether it is the output asked for is for the judge",
                truncate_chars(&cue, 60)
            ),
            None => "the output may decline the task: whether it is the output asked for is for the judge".to_string(),
        });
    }
    // Only a preamble or a pointer, the output itself elsewhere.
    static POINTER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        #[allow(clippy::unwrap_used)] // a constant pattern
        regex::Regex::new(r"(?i)^\W*(?:here (?:is|are)\b[^.!?\n]*:|(?:the )?[\w ]{1,30} (?:is|are) (?:below|attached|above|in [\w./-]+)\W*|[\w ]{1,30} (?:written|saved) to\b[^\n]*|(?:generating|working on|writing|loading|thinking)\b[^.!?\n]*(?:\.\.\.|…)\W*)$").unwrap()
    });
    if POINTER.is_match(text.trim()) {
        return Some("the output only leads in or points elsewhere (`Here is the summary:`, `Summary written to summary.md.`): whether it is the output asked for is for the judge".into());
    }
    // Over a short output, or its opening: deeper in a long report such
    // words are about its subject.
    let words = text.split_whitespace().count();
    let opening: String = text.chars().take(OPENING_CHARS).collect();
    let read = if words <= SHORT_OUTPUT_WORDS {
        &text
    } else {
        &opening
    };
    NOTHING.find(read).map(|m| {
        format!(
            "the output says `{}`{}: whether it is the output asked for, not a note that it has none, is for the judge",
            truncate_chars(m.as_str(), 60),
            if words <= SHORT_OUTPUT_WORDS { "" } else { " as it opens" }
        )
    })
}

/// Whether a JSON object reports an error or a failed status: an error
/// key (`error`, `errors`, `exception`, `failure`, `traceback`…: an API's
/// error body), a status saying the work failed (`"status": "failed"`,
/// `"ok": false`), or an HTTP error code. Read alike in an output and in
/// a scratch file of the run (a status only: [`failed_status`]).
fn reports_failure(o: &serde_json::Map<String, serde_json::Value>) -> bool {
    // An error key, or a status saying the work failed (an HTTP
    // error code too).
    let http_error = |v: &serde_json::Value| {
        v.as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .is_some_and(|n| (400..600).contains(&n))
    };
    o.iter().any(|(k, v)| {
        let key = k.to_lowercase();
        if matches!(
            key.as_str(),
            "status"
                | "code"
                | "status_code"
                | "statuscode"
                | "http_status"
                | "error_code"
                | "errorcode"
        ) && http_error(v)
        {
            return true;
        }
        let k = k.to_lowercase();
        let k = k.trim_start_matches(['_', '$', '@']);
        matches!(
            k,
            "error"
                | "errors"
                | "err"
                | "exception"
                | "failure"
                | "fault"
                | "error_message"
                | "errormessage"
                | "stderr"
                | "traceback"
        ) || failed_status(k, v)
    })
}

/// Whether `v` under the (lower-case) key `k` is a status saying the work
/// failed or did not finish (`"status": "failed"`, `"ok": false`,
/// `"failed": true`, `"complete": false`, `"exit_code": 1`).
pub(crate) fn failed_status(k: &str, v: &serde_json::Value) -> bool {
    matches!(
        k,
        "status" | "state" | "result" | "outcome" | "ok" | "success"
    ) && match v {
        serde_json::Value::String(s) => matches!(
            s.trim().to_lowercase().as_str(),
            "failed"
                | "failure"
                | "fail"
                | "error"
                | "errored"
                | "timeout"
                | "timed out"
                | "timed_out"
                | "aborted"
                | "cancelled"
                | "canceled"
                | "crashed"
                | "refused"
                | "rejected"
        ),
        serde_json::Value::Bool(b) => !b && matches!(k, "ok" | "success"),
        _ => false,
    } || match v {
        // A flag saying it failed, or did not finish.
        serde_json::Value::Bool(true) => matches!(
            k,
            "failed"
                | "is_error"
                | "iserror"
                | "has_error"
                | "haserror"
                | "errored"
                | "crashed"
                | "aborted"
                | "timed_out"
                | "timedout"
                | "truncated"
                | "partial"
                | "incomplete"
                | "cancelled"
                | "canceled"
        ),
        serde_json::Value::Bool(false) => matches!(
            k,
            "succeeded"
                | "successful"
                | "complete"
                | "completed"
                | "done"
                | "finished"
                | "valid"
                | "passed"
        ),
        // A process's exit code or a count of errors other than 0.
        serde_json::Value::Number(n) => {
            matches!(
                k,
                "exit_code"
                    | "exitcode"
                    | "exit_status"
                    | "return_code"
                    | "returncode"
                    | "error_count"
                    | "errorcount"
                    | "errors_count"
                    | "failure_count"
                    | "failures"
                    | "failed_count"
            ) && n.as_f64() != Some(0.0)
        }
        _ => false,
    }
}

/// Why a JSON object's members say something of its content: a flag
/// (any boolean) or a return code ([`return_code`]), in it or, `depth`
/// levels down, in an object under it.
fn flagged(o: &serde_json::Map<String, serde_json::Value>, depth: usize) -> Option<String> {
    o.iter().find_map(|(k, v)| match v {
        serde_json::Value::Bool(_) => Some(k),
        serde_json::Value::Number(_) if return_code(k) => Some(k),
        serde_json::Value::String(t)
            if failed_status(&k.to_lowercase(), &serde_json::Value::String(t.clone())) =>
        {
            Some(k)
        }
        serde_json::Value::Object(inner) if depth > 0 => {
            flagged(inner, depth - 1).map(|_| k)
        }
        _ => None,
    })
    .map(|k| {
        format!(
            "the output is a JSON object with a flag, a code or a status beside its content (under `{}`): what it says of the content is for the judge",
            truncate_chars(k, 40)
        )
    })
}

/// Whether a line of an output is a status saying the work failed or
/// was cut (`ok: false`, `truncated: true`, `Status: incomplete`, `rc=1`,
/// `Return code: 2`, `Note: output truncated.`, `[truncated]`, `Max
/// tokens reached.`, `ECONNRESET`).
fn says_it_failed(line: &str) -> bool {
    use std::sync::LazyLock;
    static LABEL: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^[-*+>\s]*[*_`]*([A-Za-z][A-Za-z _-]{0,30}?)[*_`]*\s*[:=]\s*[*_`]*([^*_`]+?)[*_`.]*\s*$")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    static CUT: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"(?i)\[(?:truncated|cut off|output truncated|\.\.\.truncated)\]|\b(?:output|response|text|answer|result|reply)s? (?:was |is |has been |got )?(?:truncated|cut off|cut short)\b|\bmax(?:imum)?[ _]?tokens? (?:reached|exceeded|hit)\b|\btoken limit\b|\bcontext[_ ]length[_ ]exceeded\b|\b(?:ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|OOMKilled|SIGKILL|SIGSEGV)\b|^\s*File \x22[^\x22]+\x22, line \d+|\bUncaught \w*(?:Error|Exception)\b|\bTraceback \(most recent call last\)")
            .unwrap_or_else(|_| unreachable!("valid pattern"))
    });
    if CUT.is_match(line) {
        return true;
    }
    let Some(c) = LABEL.captures(line) else {
        return false;
    };
    let key = c[1].trim().to_lowercase().replace([' ', '-'], "_");
    let raw = c[2].trim().to_lowercase();
    let value = match raw.as_str() {
        "true" | "yes" => serde_json::Value::Bool(true),
        "false" | "no" => serde_json::Value::Bool(false),
        _ => raw
            .parse::<i64>()
            .map(serde_json::Value::from)
            .unwrap_or_else(|_| serde_json::Value::String(raw.clone())),
    };
    failed_status(&key, &value)
        || (value.as_i64().is_some_and(|n| n != 0) && return_code(&key))
        || (matches!(key.as_str(), "status" | "state" | "result" | "outcome")
            && matches!(
                raw.as_str(),
                "incomplete" | "partial" | "truncated" | "unfinished" | "interrupted" | "cut off"
            ))
}

/// Whether a JSON key names a return code or a status number (`rc`,
/// `ret`, `exit`, `ok`, `success`, `status`, `code`…).
fn return_code(k: &str) -> bool {
    let k = k.to_lowercase();
    let k = k.trim_start_matches(['_', '$', '@']);
    matches!(
        k,
        "rc" | "ret"
            | "retval"
            | "retcode"
            | "exit"
            | "ok"
            | "success"
            | "status"
            | "code"
            | "state"
            | "result"
            | "errno"
    ) || [
        "exit", "error", "fail", "http", "signal", "kill", "timeout", "percent", "progress",
        "token", "return", "done", "partial", "complete", "finish", "truncat", "cut",
    ]
    .iter()
    .any(|w| k.contains(w))
}

/// Why an output reads as an error report rather than the output asked
/// for: its first line of text reads like an error (`# Error: crashed`,
/// `Error: search tool failed`), or it is a JSON object with an `error`
/// key (or `errors`, `exception`, `failure`, `traceback`…: an API's
/// error body) or a status saying the work failed (`"status":
/// "failed"`, `"ok": false`). Whether it is the output asked
/// for is the judge's.
fn error_report(content: &str) -> Option<String> {
    let json = crate::check::as_json(content);
    match &json {
        Some(serde_json::Value::Object(o)) => {
            if reports_failure(o) {
                return Some("the output is a JSON object reporting an error or a failed status: an error report, which may not be the output asked for, is for the judge".to_string());
            }
            // A flag or a return code beside the content says something
            // of it (`"is_truncated": true`, `"is_complete": false`,
            // `"rc": 1`) under names no list closes, here or in an object
            // under it: read by the judge, never passed over.
            if let Some(why) = flagged(o, 2) {
                return Some(why);
            }
        }
        // A flag among an array's values (`["…", false]`), or in one of
        // its objects.
        Some(serde_json::Value::Array(a)) => {
            if let Some(why) = a.iter().find_map(|v| match v {
                serde_json::Value::Bool(_) => Some(format!(
                    "the output is a JSON array holding a flag (`{v}`): what it says of the content is for the judge"
                )),
                serde_json::Value::Object(o) => flagged(o, 1),
                _ => None,
            }) {
                return Some(why);
            }
        }
        _ => {}
    }
    // The text a reader reads: a JSON output's string values, else the
    // output. A line anywhere reading like an error (`KeyError:
    // 'summary'`, a traceback, `thread 'main' panicked`, `FATAL: …`), or
    // saying the output was cut or the work failed (`ok: false`, `Status:
    // incomplete`, `[truncated]`, `Max tokens reached.`).
    let said = json.as_ref().map(crate::json_view::said);
    let text = said.as_deref().unwrap_or(content);
    if let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| crate::run::opens_like_error_report(l) || says_it_failed(l))
    {
        return Some(format!(
            "the output holds a line that reads like an error or a failed status (`{}`): whether it is the output asked for is for the judge",
            truncate_chars(line, 60)
        ));
    }
    let first = content.lines().find(|l| !l.trim().is_empty())?;
    crate::run::reads_like_error(first).then(|| {
        format!(
            "the output opens like an error report (`{}`): whether it is the output asked for is for the judge",
            truncate_chars(first.trim(), 60)
        )
    })
}

/// A text in straight or curly double quotes.
static QUOTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    #[allow(clippy::unwrap_used)] // a constant pattern
    regex::Regex::new(r#""([^"\n]+)"|\u{201c}([^\u{201d}\n]+)\u{201d}"#).unwrap()
});

/// Words a condition may hold besides an error's name and still name
/// it plainly ("if there was a search-failed error", "if the search
/// failed"). Anything else, a negation above all ("if there was no
/// search-failed error"), makes the condition one pactum does not read.
const CONDITION_WORDS: &[&str] = &[
    "the", "a", "an", "there", "was", "were", "is", "it", "its", "we", "got", "hit", "error",
    "errors", "occurred", "occurs", "happened", "happens", "raised", "thrown", "with", "on", "in",
    "case", "of", "fails", "failed", "failure", "returned", "returns", "reported", "reports",
];

/// Words that negate a condition.
const NEGATIONS: &[&str] = &[
    "no",
    "not",
    "never",
    "without",
    "unless",
    "except",
    "nor",
    "none",
    "didn't",
    "didnt",
    "wasn't",
    "wasnt",
    "isn't",
    "doesn't",
    "hasn't",
    "succeeded",
    "success",
    "successful",
];

/// Why a judge's answer for `clause` quotes text that is not in the
/// binding(s) the clause is about (its named output, or the contract's
/// only one): the transcript holds every output of the contract, and a
/// quote from another is no evidence for this clause (SPEC §3.4). `None`
/// when every quote is from them, or the clause names no output of
/// several.
fn foreign_quote(
    r: &ClauseResult,
    clause: &DeclaredClause,
    c: &RunContract,
    turns: &BTreeMap<String, usize>,
) -> Option<String> {
    let own = clause
        .output
        .as_ref()
        .and_then(|o| c.output(o))
        .or(match c.outputs.as_slice() {
            [one] => Some(one),
            _ => None,
        })?;
    let own_turn = turns.get(&own.name).copied();
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let body = fold(own.content.as_deref().unwrap_or(""));
    r.evidence.iter().find_map(|e| match e {
        Evidence::Quote { turn, text, .. }
            if Some(*turn) != own_turn && !body.contains(&fold(text)) =>
        {
            let from = turns
                .iter()
                .find(|(_, t)| *t == turn)
                .map_or_else(|| format!("turn {turn}"), |(n, _)| format!("output `{n}`"));
            Some(format!(
                "the judge quoted {from}, not the clause's own output `{}` ({}): \"{}\" is no evidence for this clause",
                own.name,
                own.path,
                truncate_chars(text, 120)
            ))
        }
        _ => None,
    })
}

/// Why a judge's answer that the clause held rests on a quote the output
/// only copied from what the service was given: each place the quote is
/// found in an output repeats an input or the service's own contract
/// ([`source_without_asked`]) (the echo rule of SPEC §3.4,
/// [`pactum_core::echo::Echoes`]), so it is no evidence of the service's
/// own. `None` when a quote is the service's own words somewhere, or the
/// judge found the clause not kept (copied text may show a violation).
fn copied_quote(r: &ClauseResult, c: &RunContract) -> Option<String> {
    use pactum_core::echo::{Echoes, Quoting};
    if !matches!(r.verdict, Verdict::Satisfied | Verdict::PartiallySatisfied) {
        return None;
    }
    let mut inputs: Vec<Cow<'_, str>> = c
        .inputs
        .iter()
        .filter_map(|i| i.content.as_deref().map(Cow::Borrowed))
        .collect();
    // The service's own source was given to it too (an example sentence
    // of the contract copied out is no work of its own); the texts its
    // clauses quote are what was asked, and are taken out.
    inputs.push(Cow::Owned(source_without_asked(c)));
    let folded: Vec<Cow<'_, str>> = inputs.iter().map(|i| Cow::Owned(copy_fold(i))).collect();
    r.evidence.iter().find_map(|e| match e {
        Evidence::Quote { text, .. } if !text.trim().is_empty() => {
            let mut found = false;
            let mut own = false;
            for b in &c.outputs {
                let Some(content) = b.content.as_deref() else {
                    continue;
                };
                let mut echoes = Echoes::new(content, &inputs);
                let texts: Vec<&str> = inputs.iter().map(|i| &**i).collect();
                for (at, m) in content.match_indices(text.as_str()) {
                    found = true;
                    // The paragraph holding it: copied whole, the quote
                    // is a copy too.
                    let from = content[..at].rfind("\n\n").map_or(0, |i| i + 2);
                    let to = content[at..].find("\n\n").map_or(content.len(), |i| at + i);
                    let paragraph = &content[from..to];
                    // And the sentence(s) holding it: a quote inside a
                    // whole copied sentence is a copy, however short.
                    let sentence = sentence_around(content, at, at + m.len());
                    let copied = echoes.is_echo(at, at + m.len(), Quoting::MarksAndFormatting)
                        || pactum_core::echo::only_copied(paragraph, &inputs)
                        || crate::check::pieced_copy(paragraph, &texts)
                        || pactum_core::echo::only_copied(sentence, &inputs)
                        || crate::check::pieced_copy(sentence, &texts)
                        || pactum_core::echo::only_copied(&copy_fold(paragraph), &folded)
                        || pactum_core::echo::only_copied(&copy_fold(sentence), &folded);
                    if !copied {
                        own = true;
                    }
                }
            }
            (found && !own).then(|| {
                format!(
                    "the judge quoted \"{}\", which the output only copied from its input or its own contract: copied text is no evidence the clause was kept",
                    truncate_chars(text, 120)
                )
            })
        }
        _ => None,
    })
}

/// Why a judge's answer that the clause held rests on a quote whose own
/// words only restate the clause, the contract's source file or an input
/// ([`pactum_core::echo::restates`]: found there whole, or with at most
/// one word in five added, dropped or changed), wherever the output put
/// it: "Our task: a credible analysis of battery costs" quoted for that
/// clause shows only that the output repeated its task. The texts the
/// clauses quote are what was asked, and are taken out first. `None`
/// when every quote says something of its own, or the judge found the
/// clause not kept.
fn restated_quote(r: &ClauseResult, clause: &DeclaredClause, c: &RunContract) -> Option<String> {
    if !matches!(r.verdict, Verdict::Satisfied | Verdict::PartiallySatisfied) {
        return None;
    }
    let mut own = std::iter::once(&clause.text)
        .chain(&clause.sub)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n");
    for q in asked_texts(c) {
        own = own.replace(&q, " \u{1} ");
    }
    let mut texts: Vec<(&str, String)> = vec![
        ("the clause's own words", own),
        ("the contract's source file", source_without_asked(c)),
    ];
    texts.extend(
        c.inputs
            .iter()
            .filter_map(|i| i.content.as_deref())
            .map(|t| ("the service's input", t.to_string())),
    );
    // Look-alike letters and accents are no words of the service's own.
    let folded: Vec<(&str, Cow<'_, str>)> = texts
        .iter()
        .map(|(what, t)| (*what, Cow::Owned(copy_fold(t))))
        .collect();
    r.evidence.iter().find_map(|e| match e {
        Evidence::Quote { text, .. } => {
            let q = copy_fold(text);
            let (what, _) = folded
                .iter()
                .find(|(_, t)| pactum_core::echo::restates(&q, std::slice::from_ref(t)))?;
            Some(format!(
                "the judge quoted \"{}\", which only restates {what} (found there whole, or with at most one word in five changed): a restatement is no evidence the clause was kept",
                truncate_chars(text, 120)
            ))
        }
        _ => None,
    })
}

/// The texts the contract's clauses quote ("says \"no sources were
/// found\""): what was asked, so saying them is no copy.
fn asked_texts(c: &RunContract) -> Vec<String> {
    c.declared
        .clauses
        .iter()
        .flat_map(|d| std::iter::once(&d.text).chain(&d.sub))
        .flat_map(|t| QUOTED.captures_iter(t))
        .filter_map(|q| q.get(1).or_else(|| q.get(2)))
        .map(|m| m.as_str().to_string())
        .collect()
}

/// The contract's source text (`root.prose.md` or its snapshot), each
/// text one of its clauses quotes ("says \"no sources were found\"")
/// taken out: saying that is doing what was asked, not copying the
/// source.
fn source_without_asked(c: &RunContract) -> String {
    let mut source = c.source_text.to_string();
    for d in &c.declared.clauses {
        for t in std::iter::once(&d.text).chain(&d.sub) {
            for q in QUOTED.captures_iter(t) {
                if let Some(m) = q.get(1).or_else(|| q.get(2)) {
                    source = source.replace(m.as_str(), " \u{1} ");
                }
            }
        }
    }
    source
}

/// The sentence(s) of `text` holding `[s, e)`: from after the last
/// sentence end (`.`, `!`, `?`, `;` or a line break, then white space)
/// before `s` to the first one after `e`. Byte offsets on char
/// boundaries.
fn sentence_around(text: &str, s: usize, e: usize) -> &str {
    if s > e || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
        return text;
    }
    let ends = |c: char| matches!(c, '.' | '!' | '?' | ';' | '\n' | '\u{3002}');
    let mut from = 0;
    let mut prev: Option<char> = None;
    for (i, c) in text[..s].char_indices() {
        if prev.is_some_and(ends) && c.is_whitespace() {
            from = i;
        }
        prev = Some(c);
    }
    let mut to = text.len();
    let mut chars = text[e..].char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if ends(c) && chars.peek().is_none_or(|(_, n)| n.is_whitespace()) {
            to = e + i + c.len_utf8();
            break;
        }
    }
    &text[from..to]
}

/// Why a judge's answer quotes text found in an output only where it is
/// not shown as written (an HTML comment, a hidden element, a link's
/// destination, an unreferenced footnote, text after a bidirectional
/// control or in math that can hide it, a table cell beyond its header's
/// count, a fence's info string, a footnote's label), or for a JSON output
/// in none of its string values (only keys, numbers, booleans): no evidence
/// ([`crate::check::shown_for_quotes`]). `None` when every quote is
/// shown by the output the clause is about, or in no output at all (pactum's quote verification
/// answers that).
fn hidden_quote(r: &ClauseResult, clause: &DeclaredClause, c: &RunContract) -> Option<String> {
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let outputs: Vec<(&Binding, String)> = c
        .outputs
        .iter()
        .filter_map(|b| b.content.as_deref().map(|t| (b, t)))
        .map(|(b, t)| (b, fold(t)))
        .collect();
    if outputs.is_empty() {
        return None;
    }
    r.evidence.iter().find_map(|e| match e {
        Evidence::Quote { text, .. } => {
            let q = fold(text);
            let hidden_in = outputs
                .iter()
                .find(|(_, raw)| !q.is_empty() && raw.contains(&q))?;
            // Shown by the output the clause is about (any output when it
            // names none): words another output shows back nothing here.
            let shown = c
                .outputs
                .iter()
                .filter(|b| clause.output.as_ref().is_none_or(|o| *o == b.name))
                .filter_map(|b| b.content.as_deref())
                .any(|t| {
                    // A JSON output says its string values: a quote of
                    // keys, numbers or booleans only says nothing. It
                    // backs the clause when it holds a value's text, or
                    // a whole value with its key around it.
                    // JSON with a repeated key reads as every parser
                    // reads it: the last value kept, the others unseen.
                    let json = crate::check::as_json(t)
                        .or_else(|| serde_json::from_str::<serde_json::Value>(t.trim()).ok());
                    if let Some(v) = json {
                        let values = crate::json_view::strings(&v);
                        return values.iter().any(|s| {
                            let quoted = serde_json::to_string(s).map(|j| fold(&j));
                            let s = fold(s);
                            !s.is_empty()
                                && (s.contains(&q) || quoted.is_ok_and(|j| q.contains(&j)))
                        });
                    }
                    // Rendered both as written and with what is hidden
                    // blanked (which may change what the rest renders
                    // as: a footnote's definition blanked leaves its
                    // label shown).
                    let shown = crate::check::shown_for_quotes(t);
                    fold(&shown).contains(&q)
                        && crate::check::renders_words(&shown, text)
                        && crate::check::renders_words(t, text)
                });
            (!shown).then(|| {
                format!(
                    "the judge quoted text of {} that is not shown when the Markdown renders (inside an HTML comment, a hidden element or raw HTML pactum does not read; a link's destination or label; an unreferenced footnote; after a bidirectional control; in math that can hide text; a table cell beyond its header's count, a fence's info string or a footnote's label), or of a JSON output none of its string values (a key, a number, a boolean): \"{}\" is no evidence",
                    hidden_in.0.path,
                    truncate_chars(text, 120)
                )
            })
        }
        _ => None,
    })
}

/// The declared error a condition names: the condition is the error's
/// name, or its description, or the name (`-`/`_` read as spaces) with
/// only [`CONDITION_WORDS`] around it. `Err` when none or several do, or
/// the condition says more (a negation, a qualifier): pactum does not
/// guess what such a condition means.
fn named_error(condition: &str, c: &RunContract) -> Result<String, String> {
    let norm = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .replace(['-', '_'], " ")
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '\'' || ch == '’'))
            .filter(|w| !w.is_empty())
            .map(|w| w.replace('’', "'"))
            .collect()
    };
    // A sign is no plain word: `!search-failed`, `~search-failed` and
    // `¬search-failed` negate it.
    if let Some(sign) = condition.chars().find(|ch| {
        !(ch.is_alphanumeric()
            || ch.is_whitespace()
            || matches!(
                ch,
                '-' | '_' | '\'' | '’' | '`' | '*' | '"' | '“' | '”' | '.' | ','
            ))
    }) {
        return Err(format!(
            "the condition holds `{sign}`, which pactum does not read (a negation, an operator): it reads only a condition that names an error that occurred"
        ));
    }
    let cond = norm(condition);
    if let Some(w) = cond
        .iter()
        .find(|w| NEGATIONS.contains(&w.as_str()) || w.ends_with("n't"))
    {
        return Err(format!(
            "the condition is negated (\"{w}\"): pactum reads only a condition that names an error that occurred"
        ));
    }
    let names = |e: &crate::contract::DeclaredError| -> bool {
        let n = norm(&e.name);
        let d = norm(&e.description);
        if !d.is_empty() && cond == d {
            return true;
        }
        if n.is_empty() || n.len() > cond.len() {
            return false;
        }
        (0..=cond.len() - n.len()).any(|at| {
            cond[at..at + n.len()] == n[..]
                && cond[..at]
                    .iter()
                    .chain(&cond[at + n.len()..])
                    .all(|w| CONDITION_WORDS.contains(&w.as_str()))
        })
    };
    let hits: Vec<&str> = c
        .declared
        .errors
        .iter()
        .filter(|e| names(e))
        .map(|e| e.name.as_str())
        .collect();
    match hits.as_slice() {
        [one] => Ok((*one).to_string()),
        [] if c.declared.errors.is_empty() => {
            Err("the contract declares no error (no `Errors` section)".into())
        }
        [] => Err(format!(
            "the condition is not just the name or description of one declared error ({})",
            c.declared
                .errors
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        many => Err(format!(
            "the condition matches several declared errors ({})",
            many.join(", ")
        )),
    }
}

/// The errors the run recorded for `c` that its own grading must answer
/// for: a system contract's own run-level error (`---error`), or every
/// error of a service or function.
fn own_errors(c: &RunContract) -> Vec<&RunError> {
    let local = c.name.rsplit_once('/').map_or(c.name.as_str(), |(_, n)| n);
    c.errors
        .iter()
        .filter(|e| !c.is_system || e.service == local)
        .collect()
}

/// A status and summary with unanswered errors (`note`) taken in: a
/// failure stays one, naming them too; anything else is `undetermined`,
/// saying why.
fn unanswered_status(status: TestStatus, summary: &str, note: &str) -> (TestStatus, String) {
    if status == TestStatus::Fail {
        (status, format!("{summary}; also {note}"))
    } else {
        (TestStatus::Undetermined, format!("undetermined: {note}"))
    }
}

/// Grades every contract of `run`; `judge` grades the clauses only a judge
/// can (see [`JudgeFn`]). Every declared clause of every contract is in
/// the result exactly once.
pub fn grade_run(run: &Run, policy: &Policy, judge: &mut JudgeFn<'_>) -> RunGrade {
    let mut contracts = Vec::new();
    let mut results = Vec::new();
    let mut conditionals = Vec::new();
    let mut unanswered = Vec::new();
    let mut measured_only = Vec::new();
    let upstream = crashed_outputs(run);
    for c in &run.contracts {
        let (result, conds, outputs, note, measured) = grade_contract(c, &upstream, judge);
        conditionals.extend(conds);
        measured_only.extend(measured.into_iter().map(|id| format!("{}/{id}", c.name)));
        let (mut status, mut summary) = decide(std::slice::from_ref(&result), None, policy);
        // A run that did not end as the contract describes is never a
        // pass, even with no clause to violate.
        if let Some(note) = note {
            (status, summary) = unanswered_status(status, &summary, &note);
            unanswered.push(format!("{}: {note}", c.name));
        }
        contracts.push(ContractGrade {
            name: c.name.clone(),
            source: c.source.clone(),
            digest: result.contract_digest.clone(),
            status,
            summary,
            contract_score: result.score,
            counts: result.counts,
            clauses: result.clauses.clone(),
            outputs,
            errors: c.errors.clone(),
        });
        results.push(result);
    }
    let scores = run_scores(&results, policy);
    let (mut status, mut summary) = decide(&results, None, policy);
    if !unanswered.is_empty() {
        (status, summary) = unanswered_status(status, &summary, &unanswered.join("; "));
    }
    let mut unevaluable = Vec::new();
    let mut recommendations = Vec::new();
    let mut untested = Vec::new();
    for c in &contracts {
        for r in &c.clauses {
            if r.verdict == Verdict::NotEvaluable {
                unevaluable.push(Unevaluable {
                    contract: c.name.clone(),
                    clause: r.id.clone(),
                    text: r.text.clone(),
                    reason: r.reason.unwrap_or(NotEvaluableReason::Undetermined),
                    explanation: r.rationale.clone(),
                });
                if let Some(s) = &r.suggestion {
                    recommendations.push(Recommendation {
                        contract: c.name.clone(),
                        clause: r.id.clone(),
                        suggestion: s.clone(),
                    });
                }
            }
            if r.conditional && r.verdict == Verdict::NotTriggered {
                untested.push(format!("{}/{}", c.name, r.id));
            }
        }
    }
    RunGrade {
        version: GRADE_VERSION,
        run_id: run.id.clone(),
        system: run.system.clone(),
        dir: run.dir.display().to_string(),
        layout: run.layout,
        overall_score: scores.overall_score,
        overall_verdict: scores.overall_verdict,
        status,
        summary,
        contracts,
        conditional_clauses: conditionals,
        unevaluable_clauses: unevaluable,
        recommendations,
        untested_paths: untested,
        measured_only,
        inputs: run
            .inputs
            .iter()
            .map(|b| OutputInfo {
                name: b.name.clone(),
                path: b.path.clone(),
                produced: b.content.is_some(),
                turn: None,
            })
            .collect(),
        errors: run.errors.clone(),
    }
}

/// What [`grade_contract`] gives: the result, its conditional clauses,
/// its outputs, and the errors of a contract that did not finish that no
/// clause answers for (it has no ordinary clause to be violated).
type Graded = (
    ContractResult,
    Vec<ConditionalGrade>,
    Vec<OutputInfo>,
    Option<String>,
    Vec<String>,
);

/// Each clause's condition as read, `None` for an ordinary clause: the
/// error it names (or why none), and whether the run recorded it.
type ConditionState = Option<(Result<String, String>, Outcome)>;

fn condition_states(c: &RunContract) -> Vec<ConditionState> {
    c.declared
        .clauses
        .iter()
        .map(|clause| {
            let cond = clause.condition.as_ref()?;
            let named = named_error(cond, c);
            let outcome = match &named {
                Err(_) => Outcome::Undetermined,
                Ok(e) if c.errors.iter().any(|r| error_key(&r.name) == error_key(e)) => {
                    Outcome::Detected
                }
                Ok(_) if c.completed.is_some() => Outcome::NotDetected,
                Ok(_) => Outcome::Undetermined,
            };
            Some((named, outcome))
        })
        .collect()
}

/// The errors recorded for `c` that no triggered conditional clause
/// answers, and those of them its contract does not declare: either way
/// it did not finish as its clauses describe (SPEC §3.3; see
/// [`unfinished`]). The run's own `---error` end line is never answered:
/// a run that did not end cleanly is never satisfied, whatever degraded
/// output it left.
fn unanswered_errors<'a>(
    c: &'a RunContract,
    conditions: &[ConditionState],
) -> (Vec<&'a RunError>, Vec<&'a RunError>) {
    let handled: Vec<String> = conditions
        .iter()
        .flatten()
        .filter(|(_, o)| *o == Outcome::Detected)
        .filter_map(|(n, _)| n.as_ref().ok().map(|e| error_key(e)))
        .collect();
    let declared = |r: &RunError| {
        c.declared
            .errors
            .iter()
            .any(|d| error_key(&d.name) == error_key(&r.name))
    };
    let unhandled: Vec<&RunError> = own_errors(c)
        .into_iter()
        .filter(|r| r.ends_run || !handled.contains(&error_key(&r.name)))
        .collect();
    let crashed = unhandled.iter().copied().filter(|r| !declared(r)).collect();
    (unhandled, crashed)
}

/// How a service that did not finish failed ([`unanswered_errors`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unfinished {
    /// With an error its contract does not declare: its clauses are
    /// `violated`.
    Crashed,
    /// With a declared error no conditional clause of it answers: its
    /// clauses are `not_evaluable`.
    Unanswered,
}

/// The outputs of the services that did not finish, by the scope of
/// their run (a nested run's `{handle}--{slug}`, empty for the top run)
/// and their binding path: the service's name, how it failed, and the
/// errors recorded. What such a service left is no output any contract
/// describes, the system's promising it included.
type Crashed = BTreeMap<(String, String), (String, Unfinished, String)>;

/// The scope of a contract's run: what its name holds before its last
/// `/` (a nested run's prefix), empty for the top run.
fn scope(c: &RunContract) -> &str {
    c.name.rsplit_once('/').map_or("", |(s, _)| s)
}

fn crashed_outputs(run: &Run) -> Crashed {
    let mut out = Crashed::new();
    for c in run.contracts.iter().filter(|c| !c.is_system) {
        let (unhandled, crashed) = unanswered_errors(c, &condition_states(c));
        let (how, errors) = if !crashed.is_empty() {
            (Unfinished::Crashed, crashed)
        } else if !unhandled.is_empty() {
            (Unfinished::Unanswered, unhandled)
        } else {
            continue;
        };
        for b in &c.outputs {
            out.insert(
                (scope(c).to_string(), b.path.clone()),
                (c.name.clone(), how.clone(), recorded(&errors)),
            );
        }
    }
    out
}

/// A clause of `c` on an output another service left when it did not
/// finish ([`crashed_outputs`]): `violated` when that service crashed,
/// as its own clauses are, else `not_evaluable`. A clause of `c` naming
/// no output, when one of `c`'s outputs is such, is `not_evaluable`: it
/// may be about that output.
fn on_crashed_output(
    h: ClauseHead<'_>,
    c: &RunContract,
    clause: &DeclaredClause,
    upstream: &Crashed,
) -> Option<ClauseResult> {
    fn from<'a>(
        c: &RunContract,
        upstream: &'a Crashed,
        b: &'a Binding,
    ) -> Option<(&'a Binding, &'a (String, Unfinished, String))> {
        upstream
            .get(&(scope(c).to_string(), b.path.clone()))
            .filter(|(svc, _, _)| *svc != c.name)
            .map(|found| (b, found))
    }
    let name = clause.output.as_ref().or(match c.outputs.as_slice() {
        [one] => Some(&one.name),
        _ => None,
    });
    let Some(name) = name else {
        let (b, (service, _, errors)) = c.outputs.iter().find_map(|b| from(c, upstream, b))?;
        return Some(not_evaluable(
            h,
            NotEvaluableReason::Undetermined,
            format!(
                "the clause names no output, and output `{}` ({}) comes from `{service}`, which did not finish: the run recorded {errors}; the clause may be about what it left",
                b.name, b.path
            ),
            Some("name the output the clause is about (`` - `name`: … ``)".into()),
        ));
    };
    let (b, (service, how, errors)) = from(c, upstream, c.output(name)?)?;
    let what = format!(
        "output `{name}` ({}) comes from `{service}`, which did not finish: the run recorded {errors}",
        b.path
    );
    Some(match how {
        Unfinished::Crashed => settled(
            h,
            false,
            vec![],
            format!("{what}, an error its contract does not declare; what it left is not the output a contract describes, whatever it holds"),
        ),
        Unfinished::Unanswered => not_evaluable(
            h,
            NotEvaluableReason::Undetermined,
            format!("{what}, a declared error no conditional clause of it answers: what it left describes a success that did not happen"),
            None,
        ),
    })
}

fn grade_contract(c: &RunContract, upstream: &Crashed, judge: &mut JudgeFn<'_>) -> Graded {
    let ids = clause_ids(&c.declared.clauses);
    let turns: BTreeMap<String, usize> = produced(c)
        .enumerate()
        .map(|(i, b)| (b.name.clone(), i + 1))
        .collect();
    let outputs = c
        .outputs
        .iter()
        .map(|b| OutputInfo {
            name: b.name.clone(),
            path: b.path.clone(),
            produced: turns.contains_key(&b.name),
            turn: turns.get(&b.name).copied(),
        })
        .collect();
    // The conditions first: a triggered one takes over its output.
    let cond_state = condition_states(c);
    let mut triggered_outputs: BTreeMap<String, String> = BTreeMap::new();
    for ((clause, id), state) in c.declared.clauses.iter().zip(&ids).zip(&cond_state) {
        if !matches!(state, Some((_, Outcome::Detected))) {
            continue;
        }
        let target = clause
            .output
            .clone()
            .or_else(|| match c.outputs.as_slice() {
                [one] => Some(one.name.clone()),
                _ => None,
            });
        if let Some(t) = target {
            triggered_outputs.insert(t, id.clone());
        }
    }
    let (unhandled, crashed) = unanswered_errors(c, &cond_state);

    let mut pending: Vec<Pending> = Vec::new();
    let mut conditionals = Vec::new();
    let mut memo = Memo::default();
    for ((clause, id), state) in c.declared.clauses.iter().zip(&ids).zip(&cond_state) {
        let text = clause.text.as_str();
        match state {
            None => {
                let h = head(id, text, false);
                let by = clause
                    .output
                    .as_ref()
                    .or(match c.outputs.as_slice() {
                        [one] => Some(&one.name),
                        _ => None,
                    })
                    .and_then(|o| triggered_outputs.get(o).map(|by| (o, by)))
                    // An error no triggered conditional answers (a crash,
                    // a second declared error, a run that did not end: its
                    // log ends `---error`): the clause does not stand
                    // aside, and says so.
                    .filter(|_| unhandled.is_empty());
                match by {
                    Some((o, by)) => pending.push(Pending::Done(not_triggered(
                        h,
                        format!("the declared error path was taken: conditional clause `{by}` grades output `{o}` instead"),
                    ))),
                    None => pending.push(
                        match unfinished(h, c, &crashed, &unhandled)
                            .or_else(|| on_crashed_output(h, c, clause, upstream))
                        {
                            Some(r) => Pending::Done(r),
                            None => grade_text(h, c, clause, &turns, &mut memo),
                        },
                    ),
                }
            }
            Some((named, outcome)) => {
                let h = head(id, text, true);
                let cond = clause.condition.clone().unwrap_or_default();
                let degraded = clause
                    .output
                    .as_ref()
                    .or(match c.outputs.as_slice() {
                        [one] => Some(&one.name),
                        _ => None,
                    })
                    .and_then(|o| c.output(o));
                let (triggered, provided, p) = match (outcome, named) {
                    (Outcome::Detected, Ok(e)) => {
                        let provided = match degraded {
                            Some(b) => b.content.as_deref().is_some_and(|t| !shows_nothing(t)),
                            None => produced(c).next().is_some(),
                        };
                        let mut p = grade_text(h, c, clause, &turns, &mut memo);
                        if let Pending::Done(r) | Pending::Confirm { measured: r, .. } = &mut p {
                            r.rationale = format!("error `{e}` occurred; {}", r.rationale);
                        }
                        (Some(true), Some(provided), p)
                    }
                    (Outcome::NotDetected, Ok(e)) => (
                        Some(false),
                        None,
                        Pending::Done(not_triggered(
                            h,
                            format!("error `{e}` did not occur: an untested path"),
                        )),
                    ),
                    (_, Ok(e)) => (
                        None,
                        None,
                        Pending::Done(not_evaluable(
                            h,
                            NotEvaluableReason::Undetermined,
                            format!("the run does not show whether `{}` failed with `{e}` (no log line, no workspace folder)", c.name),
                            Some("keep the run's vm.log.md and workspace/ folders".into()),
                        )),
                    ),
                    (_, Err(why)) => (
                        None,
                        None,
                        Pending::Done(not_evaluable(
                            h,
                            NotEvaluableReason::Undetermined,
                            format!("cannot tell whether the condition held: {why}"),
                            Some("name a declared error in the condition (`- if {error-name}: …`, the error listed under `Errors`)".to_string()),
                        )),
                    ),
                };
                conditionals.push(ConditionalGrade {
                    contract: c.name.clone(),
                    clause: id.clone(),
                    condition: cond,
                    error: named.as_ref().ok().cloned(),
                    triggered,
                    degraded_output_provided: provided,
                    verdict: Verdict::NotEvaluable, // set below
                });
                pending.push(p);
            }
        }
    }

    // The judge's part, in one request set per contract.
    let judged: Vec<(String, String)> = pending
        .iter()
        .zip(&ids)
        .filter_map(|(p, id)| match p {
            Pending::Judge { rubric, .. } | Pending::Confirm { rubric, .. } => {
                Some((id.clone(), rubric.clone()))
            }
            Pending::Done(_) => None,
        })
        .collect();
    let mut answers: BTreeMap<String, ClauseResult> = BTreeMap::new();
    if !judged.is_empty() {
        if let Some((cc, trace)) = judge_inputs(c, &judged) {
            for r in judge(&cc, &trace).clauses {
                answers.insert(r.id.clone(), r);
            }
        }
    }
    let mut clauses = Vec::with_capacity(pending.len());
    let mut measured_only = Vec::new();
    for ((p, id), clause) in pending.into_iter().zip(&ids).zip(&c.declared.clauses) {
        let r = match p {
            Pending::Done(r) => r,
            Pending::Judge { note, .. } => {
                let h = head(id, &clause.text, clause.condition.is_some());
                let answer = answers.remove(id).map(|r| {
                    let why = unfounded(&r, clause, c, &turns);
                    (r, why)
                });
                match answer {
                    Some((_, Some(why))) => not_evaluable(
                        h,
                        NotEvaluableReason::FabricatedEvidence,
                        why,
                        Some(FABRICATED_HINT.into()),
                    ),
                    Some((mut r, None)) => {
                        // The judge graded the rubric; the report shows
                        // the clause as declared.
                        r.text = clause.text.clone();
                        r.conditional = clause.condition.is_some();
                        if !note.is_empty() {
                            r.rationale = format!("{note}; {}", r.rationale);
                        }
                        if r.reason == Some(NotEvaluableReason::NoJudge) {
                            r.suggestion = Some(
                                "configure a judge (--judge-url, --judge-model), or state the clause in a phrasing pactum measures (docs/openprose.md)".into(),
                            );
                        }
                        r
                    }
                    None => not_evaluable(
                        h,
                        NotEvaluableReason::NoVerdict,
                        "the judge returned no verdict for this clause".into(),
                        None,
                    ),
                }
            }
            Pending::Confirm { mut measured, .. } => {
                let h = head(id, &clause.text, clause.condition.is_some());
                let held = measured.rationale.clone();
                let answer = answers.remove(id).map(|r| {
                    let why = unfounded(&r, clause, c, &turns);
                    (r, why)
                });
                match answer {
                    Some((r, _)) if r.reason == Some(NotEvaluableReason::NoJudge) => {
                        measured.rationale = format!("{held}; {MEASURED_ONLY}");
                        measured_only.push(id.clone());
                        measured
                    }
                    Some((_, Some(why))) => not_evaluable(
                        h,
                        NotEvaluableReason::FabricatedEvidence,
                        format!("measured: {held}; the judge's reading backs nothing: {why}"),
                        Some(FABRICATED_HINT.into()),
                    ),
                    Some((r, None)) if r.verdict == Verdict::Satisfied => {
                        measured.rationale =
                            format!("{held}; the judge read it as kept: {}", r.rationale);
                        measured.confidence = measured.confidence.min(r.confidence);
                        measured.evidence.extend(r.evidence);
                        measured
                    }
                    // The judge found it broken, partly kept, or could not
                    // tell: a measure that held is no answer to that.
                    Some((mut r, None)) => {
                        r.text = clause.text.clone();
                        r.conditional = clause.condition.is_some();
                        r.rationale = format!("measured: {held}; {}", r.rationale);
                        r
                    }
                    None => not_evaluable(
                        h,
                        NotEvaluableReason::NoVerdict,
                        format!("measured: {held}; the judge returned no verdict for this clause"),
                        None,
                    ),
                }
            }
        };
        clauses.push(r);
    }
    let verdicts: BTreeMap<&str, Verdict> =
        clauses.iter().map(|r| (r.id.as_str(), r.verdict)).collect();
    for cg in &mut conditionals {
        if let Some(v) = verdicts.get(cg.clause.as_str()) {
            cg.verdict = *v;
        }
    }
    let digest = pactum_core::digest::digest_of(
        &c.declared
            .clauses
            .iter()
            .map(|d| d.text.as_str())
            .collect::<Vec<_>>(),
    );
    // With no ordinary clause, nothing above shows an error the contract
    // did not answer: the contract says it.
    let unanswered = (!unhandled.is_empty()
        && c.declared.clauses.iter().all(|d| d.condition.is_some()))
    .then(|| {
        format!(
            "the run recorded {}, which no clause of `{}` answers: it did not end as its contract describes",
            recorded(&unhandled),
            c.name
        )
    });
    (
        ContractResult::new(c.name.clone(), digest, clauses),
        conditionals,
        outputs,
        unanswered,
        measured_only,
    )
}
