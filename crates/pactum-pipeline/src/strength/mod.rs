//! `strength`: probes planted in clean traces, graded in trials, scored
//! into one artifact per probe (SPEC §3.8; `docs/strength.md`); and the
//! pipelines over those artifacts, `aggregate` and `compare`.
//!
//! | what | where |
//! |---|---|
//! | the pipeline: inputs checked, baselines, probes, trials, artifacts, summary | [`strength()`] |
//! | the trial scheduler (every core, results in probe order) | [`grade_all`] |
//! | the artifact folder layout and writer | [`artifact_folder`], [`write_run`], [`PROBE_SET_FILE`] |
//! | artifact sets read back; `aggregate`, `compare` | [`artifact_files`], [`read_artifacts`], [`aggregate()`], [`compare()`] |
//!
//! The probes and trials are `pactum-probe`'s; the scoring rules
//! `pactum_core::strength`'s; the summary models and their text
//! `pactum_report::strength`'s.

mod layout;
mod schedule;
mod sets;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::policy::Policy;
use pactum_core::secret::Redactor;
use pactum_core::strength::{
    comparability_key, is_clean_baseline, ClassFloors, Ladder, PolicyRecord, ProbeClass,
    TrialOutcome,
};
use pactum_core::text::one_line;
use pactum_core::Trace;
use pactum_eval::{grade_trace, CompiledContract, NoJudge};
use pactum_probe::{load_probe_file, score, scoring_inputs, Generator, ProbeCase};
use pactum_report::strength::{
    ContractStrength, ContractSummary, SkippedTrace, StrengthSummary, SUMMARY_VERSION,
};
use pactum_report::{with_causes, Output, Protected};
use pactum_suite::{load_contract, load_policy, LoadedContract, LoadedPolicy};
use pactum_trace::{read_traces, ImportOptions, InputNotes, Item};

pub use layout::{artifact_folder, refused_before_writing, write_run, PROBE_SET_FILE};
pub use schedule::{grade_all, workers};
pub use sets::{
    aggregate, artifact_files, compare, parse_floors, read_artifacts, AggregateOutcome,
    AggregateRequest, CompareRequest,
};

use crate::inputs::{contract_protected, input_warnings, store_protected, unusable_trace_path};
use crate::keys::Shown;
use crate::{Message, MessageLevel, PipelineError, Sink};

/// What `pactum strength` is asked (the flags, validated by the front
/// end only as far as their syntax).
#[derive(Debug, Clone, Default)]
pub struct StrengthRequest {
    /// The contracts to measure: files or folders, as `grade -c` takes
    /// them (each measured on the same probe set, into its own folder).
    pub contracts: Vec<PathBuf>,
    /// Clean trace files.
    pub traces: Vec<PathBuf>,
    /// How to read the trace and probe files.
    pub import: ImportOptions,
    /// The scoring policy file (default: the built-in policy).
    pub policy: Option<PathBuf>,
    /// Trials per probe (default: the policy's `minimum_trials`; at least 1).
    pub trials: Option<u32>,
    /// Authored probe files.
    pub probes: Vec<PathBuf>,
    /// The contract whose clauses the defect probes are planted from
    /// (default: the first contract measured).
    pub probes_from: Option<PathBuf>,
    /// The artifact folder ([`artifact_folder`]).
    pub out: Option<PathBuf>,
    /// Where the HTML page will be written (`-`: standard output), so it
    /// is checked with the folders against every input before anything
    /// runs; the front end writes it from the outcome's summary
    /// (`pactum_report::html::write_strength_html`).
    pub html: Option<PathBuf>,
}

/// How a `pactum strength` run ended: its summary (what `--json` prints).
/// The verdict is `summary.verdict`; `summary.input_errors` trace
/// records could not be read (each was sent to the sink), which makes
/// the measurement partial.
#[derive(Debug, Clone)]
pub struct StrengthOutcome {
    /// The summary of every measured contract.
    pub summary: StrengthSummary,
}

/// A contract file, loaded and compiled; its warnings (and, when it
/// cannot be used, its errors) go to `sink`.
fn load_one_contract(
    path: &Path,
    sink: &mut dyn Sink,
) -> Result<(LoadedContract, CompiledContract), PipelineError> {
    match load_contract(path) {
        Ok(c) => {
            sink.diagnostics(&c.warnings);
            match CompiledContract::compile(c.contract.clone(), c.digest.clone()) {
                Ok(compiled) => Ok((c, compiled)),
                Err(e) => Err(PipelineError::Invalid(format!("{}: {e}", path.display()))),
            }
        }
        Err(diags) => {
            sink.diagnostics(&diags);
            Err(PipelineError::Rejected)
        }
    }
}

fn policy_or_default(
    path: Option<&Path>,
    sink: &mut dyn Sink,
) -> Result<(Policy, ClassFloors), PipelineError> {
    match path {
        None => Ok((Policy::default(), ClassFloors::default())),
        Some(p) => match load_policy(p) {
            Ok(LoadedPolicy { policy, floors, .. }) => Ok((policy, floors)),
            Err(diags) => {
                sink.diagnostics(&diags);
                Err(PipelineError::Rejected)
            }
        },
    }
}

fn contract_summary(c: &LoadedContract) -> ContractSummary {
    ContractSummary {
        id: c.contract.id.clone(),
        digest: c.digest.clone(),
        path: c.path.display().to_string(),
    }
}

/// `pactum strength`: contracts + clean traces (+ authored probes) → one
/// artifact folder per contract ([`write_run`]) and the summary.
///
/// Every input is checked, and every artifact folder is checked against
/// every input and the store, before anything is read or written (SPEC
/// §4: nothing overwrites an input). A trace is a clean baseline only
/// when every contract involved passes it (SPEC §3.8); the others are
/// listed in the summary. Trace records that cannot be read go to `sink`
/// as error messages and are counted (`summary.input_errors`).
///
/// # Errors
/// [`PipelineError::Rejected`] after a contract's, policy's or probe
/// file's diagnostics went to `sink`; [`PipelineError::Invalid`] for any
/// other bad input (a contract id declared twice, an artifact folder that
/// holds an input, an unreadable trace path, two clean traces or two
/// probes sharing an id, nothing to measure, a refused artifact folder);
/// [`PipelineError::Internal`] when writing the artifacts failed.
pub fn strength(
    req: &StrengthRequest,
    sink: &mut dyn Sink,
) -> Result<StrengthOutcome, PipelineError> {
    let invalid = |m: String| Err(PipelineError::Invalid(m));
    let (policy, _) = policy_or_default(req.policy.as_deref(), sink)?;
    let trials = req.trials.unwrap_or(policy.minimum_trials).max(1);
    let opts = &req.import;
    let contract_files = pactum_suite::contract_files(&req.contracts)
        .map_err(|e| PipelineError::Invalid(e.to_string()))?;
    let mut measured: Vec<(LoadedContract, CompiledContract)> = Vec::new();
    for p in &contract_files {
        measured.push(load_one_contract(p, sink)?);
    }
    let mut ids: BTreeMap<&str, &Path> = BTreeMap::new();
    for (c, _) in &measured {
        if let Some(first) = ids.insert(&c.contract.id, &c.path) {
            return invalid(format!(
                "contract id `{}` is declared twice: {} and {} (each contract's artifacts go to a folder named after its id)",
                one_line(&c.contract.id, 120),
                first.display(),
                c.path.display()
            ));
        }
    }
    let Some(first) = measured.first().cloned() else {
        return invalid("no contract given".into());
    };
    let reference = match &req.probes_from {
        None => first,
        Some(p) => load_one_contract(p, sink)?,
    };
    // Every artifact folder, checked before anything is read or written:
    // none may hold an input or the store.
    let several = measured.len() > 1;
    let folders: Vec<PathBuf> = measured
        .iter()
        .map(|(loaded, _)| artifact_folder(req.out.as_deref(), several, &loaded.contract.id))
        .collect();
    let mut protected: Vec<Protected> =
        contract_protected(measured.iter().map(|(c, _)| c).chain([&reference.0]));
    for (what, paths) in [
        ("the contract", &contract_files),
        ("the trace file", &req.traces),
        ("the probe file", &req.probes),
    ] {
        protected.extend(paths.iter().map(|p| Protected::input(what, p)));
    }
    protected.extend(req.policy.iter().map(|p| Protected::input("the policy", p)));
    protected.extend(
        req.probes_from
            .iter()
            .map(|p| Protected::input("the contract", p)),
    );
    protected.push(store_protected(None));
    let mut outputs: Vec<Output> = folders.iter().map(|f| Output::folder("--out", f)).collect();
    outputs.extend(req.html.iter().map(|p| Output::file("--html", p)));
    if let Err(e) = pactum_report::check_outputs(&outputs, &protected) {
        return invalid(e.to_string());
    }
    for t in &req.traces {
        if t.is_dir() {
            return invalid(format!(
                "{}: is a folder; name the trace files",
                t.display()
            ));
        }
        if let Some(why) = unusable_trace_path(t) {
            return invalid(format!("{}: {why}", t.display()));
        }
    }

    // Clean baselines: the traces every contract involved passes (a probe
    // needs a baseline that is clean for what measures it).
    let mut gates: Vec<&CompiledContract> = vec![&reference.1];
    for (_, c) in &measured {
        if !gates
            .iter()
            .any(|g| g.digest() == c.digest() && g.contract().id == c.contract().id)
        {
            gates.push(c);
        }
    }
    // The artifacts and the probe set copy the traces to disk: a key
    // (the environment's, or key-shaped text) is redacted from each trace
    // as it is read, before anything measures, plants or writes it.
    let mut shown = Shown::new(&Redactor::default(), [], [])?;
    sink.redact_with(shown.redactor());
    let mut clean: Vec<Trace> = Vec::new();
    let mut skipped_traces = Vec::new();
    let mut input_errors = 0u64;
    let mut notes = InputNotes::default();
    for path in &req.traces {
        if !notes.file_once(path) {
            continue;
        }
        let mut each = |item: Item| {
            match item {
                Item::Trace(mut t) => {
                    shown.trace(&t, sink);
                    shown.redactor().redact_trace(&mut t);
                    notes.trace(&t);
                    let failed = gates.iter().find_map(|g| {
                        let r = grade_trace(std::slice::from_ref(*g), &t, &policy, &NoJudge);
                        (!is_clean_baseline(&r)).then_some((*g, r))
                    });
                    match failed {
                        None => clean.push(t),
                        Some((g, r)) => skipped_traces.push(SkippedTrace {
                            trace_id: t.id.clone(),
                            contract: g.contract().id.clone(),
                            selected: g.selects(&t),
                            status: r.status,
                            summary: r.summary,
                        }),
                    }
                }
                Item::Error(e) => {
                    input_errors += 1;
                    sink.message(Message {
                        level: MessageLevel::Error,
                        text: shown.redactor().redact_string(e.to_string()),
                    });
                }
                Item::Skipped { .. } => {}
            }
            ControlFlow::Continue(())
        };
        if let Err(e) = read_traces(path, opts, &mut each) {
            return invalid(e.to_string());
        }
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for t in &clean {
        if !seen.insert(&t.id) {
            return invalid(format!(
                "two clean traces share the id `{}`: probe ids are built from trace ids, so they must be unique (--id-field picks another field)",
                one_line(&t.id, 120)
            ));
        }
    }

    let generator = match Generator::new(reference.1.clone()) {
        Ok(g) => g,
        Err(e) => return invalid(format!("{}: {e}", reference.0.path.display())),
    };
    let mut cases: Vec<ProbeCase> = Vec::new();
    let mut skipped_probes = Vec::new();
    for t in &clean {
        let g = generator.generate(t);
        cases.extend(g.cases);
        skipped_probes.extend(g.skipped);
    }
    let mut authored = 0usize;
    for p in &req.probes {
        match load_probe_file(p, opts, &mut notes) {
            Ok(found) => {
                authored += found.len();
                cases.extend(found);
            }
            Err(diags) => {
                sink.diagnostics(&diags);
                return Err(PipelineError::Rejected);
            }
        }
    }
    let mut probe_ids: BTreeSet<&str> = BTreeSet::new();
    for c in &cases {
        if !probe_ids.insert(&c.probe.id) {
            return invalid(format!(
                "probe id `{}` is declared twice (an authored probe reuses a generated id, or two probe files share it)",
                one_line(&c.probe.id, 120)
            ));
        }
    }
    if cases.is_empty() {
        return invalid(format!(
            "nothing to measure: {} trace(s) read, none passes every contract given (a probe needs a clean baseline), and no authored probe was given",
            skipped_traces.len()
        ));
    }

    let scoring = scoring_inputs(&clean, &cases, &policy, None);
    let mut results = Vec::new();
    for ((loaded, contract), out) in measured.iter().zip(folders) {
        let outcomes = grade_all(contract, &cases, trials, &policy);
        let graded: Vec<(&ProbeCase, Vec<TrialOutcome>)> = cases.iter().zip(outcomes).collect();
        let artifacts = score(contract, &policy, &scoring, graded).map_err(|e| {
            PipelineError::Invalid(format!("scoring {} failed: {e}", loaded.contract.id))
        })?;
        write_run(&out, &artifacts, &cases).map_err(|e| {
            // A folder pactum may not write into is refused before anything
            // is written (bad input); a failure while writing is the disk's.
            if refused_before_writing(&e) {
                PipelineError::Invalid(with_causes(&e))
            } else {
                PipelineError::Internal(with_causes(&e))
            }
        })?;
        results.push(ContractStrength::of(
            contract_summary(loaded),
            &out,
            &artifacts,
        ));
    }

    let mut by_class: BTreeMap<ProbeClass, u64> = BTreeMap::new();
    for c in &cases {
        *by_class.entry(c.probe.class).or_default() += 1;
    }
    let all_ids: Vec<&str> = probe_ids.into_iter().collect();
    let summary = StrengthSummary {
        version: SUMMARY_VERSION,
        command: "strength",
        probes_from: contract_summary(&reference.0),
        policy: PolicyRecord::of(&policy),
        trials,
        scoring_version: scoring.scoring_version(),
        comparability_key: comparability_key(&policy.digest(), &all_ids),
        clean_traces: clean.len(),
        skipped_traces,
        probes: by_class,
        authored_probes: authored,
        skipped_probes,
        input_errors,
        warnings: input_warnings(&notes),
        verdict: results
            .iter()
            .map(|r| r.verdict)
            .max()
            .unwrap_or(Ladder::Pass),
        contracts: results,
    };
    Ok(StrengthOutcome { summary })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pactum_core::secret::Redactor;
    use pactum_core::{ObservabilityLevel, TestStatus, TraceResult};
    use pactum_report::{InputError, MissingTrial, RunEnd, RunInfo};
    use pactum_suite::Diagnostic;

    /// Keeps what a pipeline says beside its reports.
    #[derive(Default)]
    struct Recorder {
        diagnostics: Vec<Diagnostic>,
        messages: Vec<Message>,
    }

    impl Sink for Recorder {
        fn begin(&mut self, _: &RunInfo) {}
        fn result(&mut self, _: &TraceResult, _: Option<TestStatus>) {}
        fn input_error(&mut self, _: &InputError) {}
        fn missing_trial(&mut self, _: &MissingTrial) {}
        fn finish(&mut self, _: &RunEnd) {}
        fn redact_with(&mut self, _: &Redactor) {}
        fn report_failed(&self) -> bool {
            false
        }
        fn diagnostics(&mut self, d: &[Diagnostic]) {
            self.diagnostics.extend_from_slice(d);
        }
        fn message(&mut self, m: Message) {
            self.messages.push(m);
        }
    }

    /// The strength example's tool-call contract and clean traces, copied
    /// into `dir` (so a wrong write never reaches the repository).
    fn example(dir: &Path) -> (PathBuf, PathBuf) {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/strength");
        let contract = dir.join("tool-call.yaml");
        let traces = dir.join("traces.jsonl");
        std::fs::copy(from.join("contracts/tool-call.yaml"), &contract).unwrap();
        std::fs::copy(from.join("traces.jsonl"), &traces).unwrap();
        (contract, traces)
    }

    fn request(contract: PathBuf, traces: PathBuf, out: PathBuf) -> StrengthRequest {
        StrengthRequest {
            contracts: vec![contract],
            traces: vec![traces],
            import: ImportOptions {
                observability: Some(ObservabilityLevel::ToolCalls),
                ..ImportOptions::default()
            },
            out: Some(out),
            ..StrengthRequest::default()
        }
    }

    #[test]
    fn an_artifact_folder_holding_an_input_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let (contract, traces) = example(dir.path());
        let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        let mut sink = Recorder::default();
        let e = strength(
            &request(contract, traces.clone(), dir.path().to_path_buf()),
            &mut sink,
        )
        .unwrap_err();
        assert!(matches!(e, PipelineError::Invalid(_)), "{e:?}");
        assert!(e.to_string().contains("--out"), "{e}");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            before.len(),
            "something was written"
        );
        assert!(sink.messages.is_empty());
    }

    #[test]
    fn an_unreadable_record_is_said_and_counted_and_the_rest_measured() {
        let dir = tempfile::tempdir().unwrap();
        let (contract, traces) = example(dir.path());
        // Two clean traces keep the test quick; the third line is broken.
        let text = std::fs::read_to_string(&traces).unwrap();
        let mut text: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
        text.push_str("not json\n");
        std::fs::write(&traces, text).unwrap();
        let out = dir.path().join("out");
        let mut sink = Recorder::default();
        let s = strength(&request(contract, traces, out.clone()), &mut sink)
            .unwrap()
            .summary;
        assert_eq!(s.input_errors, 1);
        assert_eq!(sink.messages.len(), 1);
        assert_eq!(sink.messages[0].level, MessageLevel::Error);
        assert!(
            sink.messages[0].text.contains("traces.jsonl:3"),
            "{:?}",
            sink.messages
        );
        assert_eq!(s.clean_traces, 2);
        // The example's contract misses its gameability probes: FAIL.
        assert_eq!(s.verdict, Ladder::Fail);
        assert!(out.join(PROBE_SET_FILE).is_file());
        let artifacts = read_artifacts(&artifact_files(&[out]).unwrap()).unwrap();
        assert_eq!(artifacts.len() as u64, s.probes.values().sum::<u64>());
    }
}
