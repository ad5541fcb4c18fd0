//! `grade RUN_DIR…`: completed OpenProse runs, each graded against the
//! contracts it declared ([`pactum_openprose`], `docs/openprose.md`).
//!
//! [`prepare`] imports every run (any import error refuses the whole
//! command: nothing is graded) and connects the judge; [`Prepared::grade`]
//! grades them and streams one result per contract to the [`Sink`] (trace
//! id `RUN_ID/CONTRACT`), so the terminal, JSON and JUnit reports read as
//! for traces, and hands the contract grader's report of every run to the
//! sink's `finish` (the JSON report's `openprose` array).
//!
//! A judged clause goes through the judge exactly as a trace's judged
//! clause does (`pactum_runner::judge_trace`, then
//! `pactum_eval::CompiledContract::grade`): the same cache, the same
//! confidence threshold, the same quote verification against the
//! bindings.

use std::path::{Path, PathBuf};

use pactum_core::secret::{key_tokens, Redactor};
use pactum_core::text::one_line;
use pactum_core::trace::Trace;
use pactum_core::{NotEvaluableReason, ObservabilityLevel, Policy, TestStatus, TraceResult};
use pactum_eval::{CompiledContract, NoJudge};
pub use pactum_openprose::is_run_dir;
use pactum_openprose::{grade_run, import_run, Run, RunGrade};
use pactum_report::{ContractInfo, InputFile, Protected, RunEnd, RunInfo, Warning};

use crate::grade::{judge_setup, store_protected, GradeJudge, GradeOutcome, JudgeConfig};
use crate::{redact_message, Message, MessageLevel, PipelineError, Sink};

/// What `pactum grade RUN_DIR…` grades and how.
#[derive(Debug, Clone)]
pub struct ProseRequest {
    /// Run directories, graded in this order.
    pub runs: Vec<PathBuf>,
    /// The grading policy (severity floor, confidence threshold).
    pub policy: Policy,
    /// The judge, if any; without one, clauses only a judge can grade are
    /// not evaluable (`no-judge`).
    pub judge: Option<JudgeConfig>,
    /// The store whose cache keeps judge answers; opened only with a judge.
    pub store: Option<PathBuf>,
}

/// Imported runs and the judge, ready to grade.
pub struct Prepared<'r> {
    req: &'r ProseRequest,
    runs: Vec<Run>,
    judge: Option<GradeJudge>,
    /// The secrets to keep out of every report, the terminal and the
    /// judge's prompt ([`crate::keys::Shown`] over the runs' text).
    redactor: Redactor,
    /// How many distinct key-shaped tokens the runs' text holds.
    keys_in_runs: usize,
}

/// The longest error message about a run, in characters: its names and
/// quoted lines are the run's text, folded to one line and bounded.
const MESSAGE_CHARS: usize = 2_000;

/// What no report of `req` may be written over or into: each run folder
/// and the store. Known before anything is opened, so a command checks
/// its report paths against it first ([`Prepared::protected`] is the
/// same).
pub fn protected(req: &ProseRequest) -> Vec<Protected> {
    let mut out: Vec<Protected> = req
        .runs
        .iter()
        .map(|p| Protected::folder("the OpenProse run", p))
        .collect();
    out.push(store_protected(req.store.as_deref()));
    out
}

/// Imports every run of `req` and connects the judge.
///
/// # Errors
/// [`PipelineError::Invalid`] naming the run and the import error's code
/// (`missing-root`, `missing-manifest`, `no-outputs`,
/// `unsupported-layout`, `invalid-manifest`, …) for the first run that
/// cannot be imported; [`PipelineError::Store`] when the judge's store
/// cannot be opened.
pub fn prepare(req: &ProseRequest) -> Result<Prepared<'_>, PipelineError> {
    let mut runs = Vec::new();
    for dir in &req.runs {
        let run = import_run(dir).map_err(|e| {
            let text = e.to_string();
            let code = e.code();
            let text = if text.starts_with(code) {
                text
            } else {
                format!("{code}: {text}")
            };
            // A path or a line quoted in the error can hold a key (a
            // folder or file named with one): redacted before it is shown,
            // and one line, so a name holding a line break cannot start a
            // line of its own (SPEC §4).
            PipelineError::Invalid(redact_message(one_line(&text, MESSAGE_CHARS), code))
        })?;
        runs.push(run);
    }
    // Each result's trace id is `{run id}/{contract}`: two runs giving one
    // trace id (the same run twice, or two runs with one id) would have
    // one result hide the other in every report keyed by it.
    let mut ids: std::collections::BTreeMap<String, &std::path::Path> = Default::default();
    for r in &runs {
        for c in &r.contracts {
            let id = format!("{}/{}", r.id, c.name);
            if let Some(first) = ids.insert(id.clone(), &r.dir) {
                let text = format!(
                    "invalid-run: {} and {} both give the trace id `{id}`: grade each run once, and runs with different run ids",
                    first.display(),
                    r.dir.display()
                );
                return Err(PipelineError::Invalid(redact_message(
                    one_line(&text, MESSAGE_CHARS),
                    "invalid-run",
                )));
            }
        }
    }
    // The store (`--db`, or the default one a judge opens) inside a run
    // would be read as part of the run by the next grade, and the run's
    // grading would write into it: refused before it is opened.
    let store = req
        .store
        .clone()
        .or_else(|| req.judge.is_some().then(|| crate::common::store_path(None)));
    if let Some(db) = store {
        let runs_kept: Vec<Protected> = req
            .runs
            .iter()
            .map(|p| Protected::folder("the OpenProse run", p))
            .collect();
        let out = [pactum_report::Output::store("--db", &db)];
        if let Err(e) = pactum_report::check_outputs(&out, &runs_kept) {
            return Err(PipelineError::Invalid(format!(
                "{e} (the store cannot be kept inside a run being graded)"
            )));
        }
    }
    let mut keys: std::collections::HashSet<String> = std::collections::HashSet::new();
    keys.extend(runs.iter().flat_map(Run::texts).flat_map(key_tokens));
    // Keys that read whole only once the Markdown renders (split by a
    // tag, a character reference or a link), and the text each renders
    // from: redacted as written keys are.
    let mut rendered = pactum_openprose::keys::ShownKeys::default();
    for r in &runs {
        let found = r.shown_keys();
        rendered.keys.extend(found.keys);
        rendered.sources.extend(found.sources);
    }
    keys.extend(rendered.keys.iter().cloned());
    let keys_in_runs = keys.len();
    let (judge, shown) = judge_setup(
        req.judge.as_ref(),
        req.store.as_deref(),
        runs.iter().flat_map(Run::texts),
    )?;
    let redactor = Redactor::new(rendered.secrets())
        .and_then(|r| r.with(shown.redactor()))
        .map_err(|e| PipelineError::Invalid(format!("the keys to redact {e}")))?;
    Ok(Prepared {
        req,
        runs,
        judge,
        redactor,
        keys_in_runs,
    })
}

impl Prepared<'_> {
    /// The imported runs.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// What no report may touch: every run folder, whole (a report
    /// inside one would be read as part of the run next time), and the
    /// store.
    pub fn protected(&self) -> Vec<Protected> {
        protected(self.req)
    }

    /// Grades every run; `sink` receives `begin`, one result per contract
    /// in run order, then `finish` with the contract grader's report of
    /// each run.
    ///
    /// # Errors
    /// None once prepared; the `Result` matches the other pipelines.
    pub fn grade(self, sink: &mut dyn Sink) -> Result<GradeOutcome, PipelineError> {
        let policy = self.req.policy;
        let judge = self.judge.as_ref();
        let redactor = &self.redactor;
        // Graded before `begin`, which names each contract's digest.
        let mut judge_error: Option<String> = None;
        let mut grades: Vec<RunGrade> = Vec::new();
        for run in &self.runs {
            let mut judge_fn = |c: &CompiledContract, t: &Trace| match judge {
                None => c.grade(t, &policy, &NoJudge),
                Some(j) => {
                    let mut trace = t.clone();
                    redactor.redact_trace(&mut trace);
                    // The rubrics are the clauses' words, which may quote a
                    // key as the bindings may: the judge reads neither.
                    let judged = match redacted_rubrics(c, redactor) {
                        Ok((asked, names)) => {
                            j.rt.block_on(pactum_runner::judge_trace(
                                Some(&j.setup),
                                &[&asked],
                                &trace,
                                &j.cache,
                                None,
                            ))
                            .map(|(judgments, _, _)| (judgments, names))
                            .map_err(|e| format!("judge cache: {e}"))
                        }
                        Err(e) => Err(format!("the clauses with their keys redacted: {e}")),
                    };
                    match judged {
                        Ok((judgments, names)) => {
                            let windows = pactum_llm::transcript::windows(&trace).needed;
                            let renamed = AskedAs {
                                inner: &judgments,
                                names: &names,
                            };
                            let judgments =
                                pactum_openprose::grade::Windowed::new(&renamed, windows);
                            c.grade(&trace, &policy, &judgments)
                        }
                        Err(e) => {
                            judge_error.get_or_insert_with(|| e.clone());
                            // A judge was configured and could not be
                            // asked: not the same as none (a measured
                            // green then stands as measured only).
                            let mut r = c.grade(&trace, &policy, &NoJudge);
                            for cl in &mut r.clauses {
                                if cl.reason == Some(NotEvaluableReason::NoJudge) {
                                    cl.reason = Some(NotEvaluableReason::JudgeError);
                                    cl.rationale = format!("the judge could not be asked: {e}");
                                }
                            }
                            r
                        }
                    }
                }
            };
            grades.push(grade_run(run, &policy, &mut judge_fn));
        }
        // A judge's own words may hold a key-shaped token it made up or
        // echoed (SPEC §4): found in the rationales, redacted as the
        // runs' keys are.
        let answered: std::collections::BTreeSet<String> = grades
            .iter()
            .flat_map(|g| &g.contracts)
            .flat_map(|c| &c.clauses)
            .flat_map(|r| key_tokens(&r.rationale))
            .filter(|k| redactor.redact(k) == *k)
            .collect();
        let keys_in_answers = answered.len();
        let redactor = if answered.is_empty() {
            redactor.clone()
        } else {
            Redactor::new(&answered)
                .and_then(|r| r.with(redactor))
                .map_err(|e| PipelineError::Invalid(format!("the keys to redact {e}")))?
        };
        if !redactor.is_empty() {
            sink.redact_with(&redactor);
        }
        if let Some(text) = judge_error {
            sink.message(Message {
                level: MessageLevel::Error,
                text,
            });
        }
        let info = RunInfo {
            command: "grade".into(),
            pactum_version: env!("CARGO_PKG_VERSION").into(),
            policy,
            contracts: grades
                .iter()
                .flat_map(|g| {
                    g.contracts.iter().map(move |c| ContractInfo {
                        id: c.name.clone(),
                        path: Path::new(&g.dir).join(&c.source).display().to_string(),
                        digest: c.digest.clone(),
                    })
                })
                .collect(),
            authored_tests: 0,
            expectations: None,
            run: None,
        };
        sink.begin(&info);
        let mut outcome = GradeOutcome::default();
        let mut inputs = Vec::new();
        for (run, g) in self.runs.iter().zip(&grades) {
            for (c, contract) in g.contracts.iter().zip(&run.contracts) {
                let result = TraceResult {
                    trace_id: format!("{}/{}", g.run_id, c.name),
                    // The run folder, so the JUnit report groups a run's
                    // contracts in one test suite.
                    source: Some(pactum_core::trace::SourceRef {
                        file: run.dir.display().to_string(),
                        line: 0,
                    }),
                    observability: ObservabilityLevel::ResponseOnly,
                    status: c.status,
                    summary: c.summary.clone(),
                    contracts: vec![pactum_core::ContractResult {
                        contract_id: contract.name.clone(),
                        contract_digest: c.digest.clone(),
                        clauses: c.clauses.clone(),
                        counts: c.counts,
                        score: c.contract_score,
                    }],
                    overall_score: c.contract_score,
                    error: None,
                };
                *outcome.by_status.entry(result.status).or_default() += 1;
                if c.status == TestStatus::Pass
                    && !pactum_core::score::contract_passes(c.status, &c.counts)
                {
                    outcome.partly_kept += 1;
                }
                outcome.graded += 1;
                sink.result(&result, None);
            }
            inputs.push(InputFile {
                path: run.dir.display().to_string(),
                format: "openprose".into(),
                traces: g.contracts.len() as u64,
                skipped: 0,
                errors: 0,
            });
        }
        let mut warnings = Vec::new();
        let no_judge = grades
            .iter()
            .flat_map(|g| &g.unevaluable_clauses)
            .filter(|u| u.reason == pactum_core::NotEvaluableReason::NoJudge)
            .count();
        if no_judge > 0 {
            warnings.push(Warning {
                code: "no-judge".into(),
                message: format!(
                    "{no_judge} clause(s) need a judge (their text is not in a phrasing pactum measures) but no judge is configured: each is not evaluable with reason no-judge"
                ),
            });
        }
        if outcome.partly_kept > 0 {
            warnings.push(Warning {
                code: "partly-kept".into(),
                message: format!(
                    "{} contract(s) of status pass hold a clause only partly kept (partially_satisfied): a commitment kept in part is not kept, so such a contract does not pass and the run's overall verdict is not satisfied",
                    outcome.partly_kept
                ),
            });
        }
        if self.keys_in_runs > 0 {
            warnings.push(Warning {
                code: "redacted-secret".into(),
                message: format!(
                    "the runs' text holds {} key-shaped token(s) (shaped like an OpenAI, GitHub or Google API key, say): each is shown as [redacted] in every report and on the terminal{}; treat each as leaked and rotate it",
                    self.keys_in_runs,
                    if judge.is_some() { ", and the judge never saw it" } else { "" }
                ),
            });
        }
        if keys_in_answers > 0 {
            warnings.push(Warning {
                code: "redacted-secret".into(),
                message: format!(
                    "the judge's answers hold {keys_in_answers} key-shaped token(s) the runs do not: each is shown as [redacted] in every report and on the terminal"
                ),
            });
        }
        sink.finish(&RunEnd {
            inputs,
            warnings,
            openprose: grades,
        });
        outcome.report_failed = sink.report_failed();
        Ok(outcome)
    }
}

/// `c` with every judged clause's words (its text and rubric) redacted
/// by `redactor`: what the judge is asked (SPEC §4: keys never reach a
/// prompt). An id (the contract's, a clause's) that redaction would
/// change is asked under a plain one instead (`contract`, `clause-3`):
/// the [`AskedAs`] names map the answers back to `c`'s own ids.
///
/// # Errors
/// The contract does not compile again (it did once, with the same checks).
fn redacted_rubrics(
    c: &CompiledContract,
    redactor: &Redactor,
) -> Result<(CompiledContract, AskedNames), pactum_eval::EvalError> {
    let mut contract = c.contract().clone();
    let mut names = AskedNames::default();
    if redactor.redact(&contract.id) != contract.id {
        names.contract = Some((contract.id.clone(), "contract".into()));
        contract.id = "contract".into();
    }
    let mut taken: std::collections::BTreeSet<String> = contract
        .required
        .iter()
        .chain(&contract.prohibited)
        .map(|c| c.id.clone())
        .collect();
    let mut n = 0;
    for clause in contract
        .required
        .iter_mut()
        .chain(contract.prohibited.iter_mut())
    {
        if redactor.redact(&clause.id) != clause.id {
            let asked = loop {
                n += 1;
                let id = format!("clause-{n}");
                if taken.insert(id.clone()) {
                    break id;
                }
            };
            names.clauses.insert(clause.id.clone(), asked.clone());
            clause.id = asked;
        }
        clause.text = redactor.redact(&clause.text).into_owned();
        if let Some(rubric) = &mut clause.judge {
            *rubric = redactor.redact(rubric).into_owned();
        }
    }
    CompiledContract::compile(contract, c.digest().to_string()).map(|asked| (asked, names))
}

/// The ids a contract was asked under where they are not its own
/// ([`redacted_rubrics`]): the contract's (own, asked), and each
/// clause's own id to its asked one.
#[derive(Debug, Default)]
struct AskedNames {
    contract: Option<(String, String)>,
    clauses: std::collections::BTreeMap<String, String>,
}

/// A judge's answers read under the contract's own ids.
struct AskedAs<'a, J> {
    inner: &'a J,
    names: &'a AskedNames,
}

impl<J: pactum_eval::Judgments> pactum_eval::Judgments for AskedAs<'_, J> {
    fn configured(&self) -> bool {
        self.inner.configured()
    }

    fn answer(
        &self,
        contract_id: &str,
        clause_id: &str,
    ) -> Option<pactum_core::judge::JudgeAnswer> {
        let contract = match &self.names.contract {
            Some((own, asked)) if own == contract_id => asked.as_str(),
            _ => contract_id,
        };
        let clause = self
            .names
            .clauses
            .get(clause_id)
            .map_or(clause_id, String::as_str);
        self.inner.answer(contract, clause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids holding a key are asked under plain ones, never colliding with
    /// another clause's, and the answers read back under the own ids.
    #[test]
    fn ids_holding_a_key_are_asked_under_plain_ones() {
        use pactum_core::contract::{Contract, Severity};
        use pactum_core::judge::JudgeAnswer;
        const KEY: &str = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy2z3A";
        let clause = |id: &str, rubric: &str| pactum_core::contract::Clause {
            id: id.into(),
            text: rubric.into(),
            severity: Severity::Medium,
            check: None,
            judge: Some(rubric.into()),
        };
        let contract = Contract {
            version: pactum_core::contract::CONTRACT_SCHEMA_VERSION,
            id: format!("svc-{KEY}"),
            description: None,
            select: None,
            required: vec![
                clause(KEY, &format!("never quotes {KEY}")),
                clause("clause-1", "is short"),
            ],
            prohibited: vec![],
            conditional: vec![],
            simulated_user_objective: None,
            adversarial: false,
            source_notes: vec![],
        };
        let c = CompiledContract::compile(contract, "sha256:x".into()).expect("compiles");
        let redactor = Redactor::new([KEY]).expect("redactor");
        let (asked, names) = redacted_rubrics(&c, &redactor).expect("asked");
        let text = serde_json::to_string(asked.contract()).expect("JSON");
        assert!(!text.contains(&KEY[4..]), "{text}");
        assert_eq!(asked.contract().id, "contract");
        let ids: Vec<&str> = asked
            .contract()
            .required
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(ids, ["clause-2", "clause-1"]);
        struct Asked;
        impl pactum_eval::Judgments for Asked {
            fn configured(&self) -> bool {
                true
            }
            fn answer(&self, contract: &str, clause: &str) -> Option<JudgeAnswer> {
                (contract == "contract" && clause == "clause-2").then(|| JudgeAnswer::Failed {
                    reason: NotEvaluableReason::LowConfidence,
                    detail: "found".into(),
                })
            }
        }
        let read = AskedAs {
            inner: &Asked,
            names: &names,
        };
        assert!(pactum_eval::Judgments::answer(&read, &format!("svc-{KEY}"), KEY).is_some());
        assert!(pactum_eval::Judgments::answer(&read, &format!("svc-{KEY}"), "clause-1").is_none());
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("read_dir") {
            let e = e.expect("entry");
            let target = to.join(e.file_name());
            if e.file_type().expect("type").is_dir() {
                copy_dir(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), &target).expect("copy");
            }
        }
    }

    fn request(run: &Path) -> ProseRequest {
        ProseRequest {
            runs: vec![run.to_path_buf()],
            policy: Policy::default(),
            judge: None,
            store: None,
        }
    }

    /// A key quoted in an import error is redacted as a whole token: the
    /// words around it that share a few characters with it
    /// (`root.prose.md` beside a key ending `.prose.md`) are kept whole.
    #[test]
    fn an_import_error_redacts_the_key_not_the_words_beside_it() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        let example =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/degraded");
        copy_dir(&example, &run);
        let key = "sk-live-abcdef1234567890.prose.md";
        let log = std::fs::read_to_string(run.join("vm.log.md")).expect("log");
        let log: String = log
            .lines()
            .map(|l| {
                if l.starts_with("root:") {
                    format!("root: {key}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(run.join("vm.log.md"), log).expect("write");
        match prepare(&request(&run)) {
            Err(PipelineError::Invalid(text)) => {
                assert!(!text.contains("abcdef1234567890"), "{text}");
                assert!(text.contains("[redacted]"), "{text}");
                assert!(text.contains("not root.prose.md"), "{text}");
            }
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("accepted"),
        }
    }

    /// The store may not live inside a run being graded, by any spelling
    /// of its path; beside the run it is accepted.
    #[test]
    fn a_store_inside_a_run_is_refused() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        let example =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
        copy_dir(&example, &run);
        for db in [
            run.join("pactum.db"),
            run.join("bindings/analyst/x.db"),
            run.join("new/folder/x.db"),
            run.join("bindings/../x.db"),
        ] {
            let mut req = request(&run);
            req.store = Some(db.clone());
            match prepare(&req) {
                Err(PipelineError::Invalid(text)) => {
                    assert!(text.contains("--db"), "{text}");
                    assert!(text.contains(&run.display().to_string()), "{text}");
                }
                Err(other) => panic!("{}: {other:?}", db.display()),
                Ok(_) => panic!("{}: accepted", db.display()),
            }
            assert!(!db.exists(), "{} was created", db.display());
        }
        let mut req = request(&run);
        req.store = Some(tmp.path().join("pactum.db"));
        assert!(prepare(&req).is_ok());
    }

    /// Every file of a run, however many it holds, and every path inside
    /// it that does not exist yet, is kept from the reports.
    #[test]
    fn no_report_may_be_written_inside_a_run() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run");
        let example =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openprose/satisfied");
        copy_dir(&example, &run);
        let junk = run.join("workspace/analyst/junk");
        std::fs::create_dir_all(&junk).expect("mkdir");
        for i in 0..=10_000 {
            std::fs::write(junk.join(format!("{i}")), "").expect("write");
        }
        let req = request(&run);
        let p = prepare(&req).expect("prepares");
        let protected = p.protected();
        for inside in [
            junk.join("10000"),
            run.join("sources/analyst.prose.md"),
            run.join("report.json"),
            run.join("bindings/analyst/new.md"),
        ] {
            let out = [pactum_report::Output::file("--json", &inside)];
            match pactum_report::check_outputs(&out, &protected) {
                Err(pactum_report::ReportError::OutputInsideInput { folder, .. }) => {
                    assert_eq!(folder, run);
                }
                other => panic!("{}: {other:?}", inside.display()),
            }
        }
        let beside = [pactum_report::Output::file(
            "--json",
            tmp.path().join("r.json"),
        )];
        pactum_report::check_outputs(&beside, &protected).expect("beside the run");
    }
}
