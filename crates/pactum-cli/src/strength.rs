//! `pactum strength`, `pactum aggregate` and `pactum compare` (SPEC §3.8;
//! `docs/strength.md`): wiring of `pactum-probe` (probes, trials) and
//! `pactum_core::strength` (scoring, aggregation, dominance). The rules
//! live there; this module reads files, writes artifacts and prints.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::digest::canonical_json;
use pactum_core::policy::Policy;
use pactum_core::strength::{
    aggregate, comparability_key, compare, is_clean_baseline, strength_vector, Aggregate,
    ClassFloors, ClassRate, Comparison, ComparisonReason, ContractRef, CoverageGap, Dominance,
    EvidenceArtifact, EvidenceSet, Ladder, LadderReason, PolicyRecord, ProbeClass, Side,
    StrengthClass, StrengthVector, TrialGroup, TrialOutcome,
};
use pactum_core::text::one_line;
use pactum_core::{Severity, TestStatus, Trace};
use pactum_eval::{grade_trace, CompiledContract, NoJudge};
use pactum_probe::{
    artifact_file_name, load_probe_file, run_trials, score, scoring_inputs, Generator, ProbeCase,
    SkippedProbe,
};
use pactum_report::{Output, OutputFolder, Protected, Warning};
use pactum_suite::{load_contract, load_policy, LoadedContract, LoadedPolicy};
use pactum_trace::{read_traces, InputNotes, Item};
use serde::Serialize;

use crate::exit::Exit;
use crate::grade::{import_options, print_diagnostics};
use crate::output::{eprint, stderr_color, with_causes};
use crate::{AggregateArgs, CompareArgs, StrengthArgs};

/// The file in an output folder that lists the probe set (and marks the
/// folder as pactum's, so a later run may clear it).
pub const PROBE_SET_FILE: &str = "probes.jsonl";
/// The summary format version (`--json`).
const SUMMARY_VERSION: u32 = 1;
/// Missed probes and skipped items listed in the terminal summary; `--json`
/// lists every one.
const SHOWN: usize = 10;

fn load_one_contract(path: &Path, color: bool) -> Option<(LoadedContract, CompiledContract)> {
    match load_contract(path) {
        Ok(c) => {
            print_diagnostics(&c.warnings, color);
            match CompiledContract::compile(c.contract.clone(), c.digest.clone()) {
                Ok(compiled) => Some((c, compiled)),
                Err(e) => {
                    eprint(&format!("error: {}: {e}", path.display()));
                    None
                }
            }
        }
        Err(diags) => {
            print_diagnostics(&diags, color);
            None
        }
    }
}

fn policy_or_default(path: Option<&Path>, color: bool) -> Option<(Policy, ClassFloors)> {
    match path {
        None => Some((Policy::default(), ClassFloors::default())),
        Some(p) => match load_policy(p) {
            Ok(LoadedPolicy { policy, floors, .. }) => Some((policy, floors)),
            Err(diags) => {
                print_diagnostics(&diags, color);
                None
            }
        },
    }
}

// ---------------------------------------------------------------------------
// pactum strength
// ---------------------------------------------------------------------------

/// A trace that could not serve as a clean baseline.
#[derive(Debug, Clone, Serialize)]
struct SkippedTrace {
    trace_id: String,
    /// The first contract it did not pass.
    contract: String,
    /// Whether that contract selects the trace at all (`select`).
    selected: bool,
    status: TestStatus,
    summary: String,
}

/// A missed probe for the summary: the mutation that slipped through and
/// why the contract let it.
#[derive(Debug, Clone, Serialize)]
struct Missed {
    probe_id: String,
    class: ProbeClass,
    severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    targets: Option<String>,
    mutation: String,
    why: String,
}

#[derive(Debug, Clone, Serialize)]
struct BasisCount {
    rung: Ladder,
    reason: String,
    count: u64,
}

#[derive(Debug, Clone, Serialize)]
struct ContractSummary {
    id: String,
    digest: String,
    path: String,
}

/// One measured contract of a `pactum strength` run.
#[derive(Debug, Clone, Serialize)]
struct ContractStrength {
    contract: ContractSummary,
    out: String,
    strength: StrengthVector,
    verdict: Ladder,
    basis: Vec<BasisCount>,
    missed: Vec<Missed>,
    coverage_gaps: Vec<CoverageGap>,
}

/// What `pactum strength --json` prints.
#[derive(Debug, Clone, Serialize)]
struct StrengthSummary {
    version: u32,
    command: &'static str,
    probes_from: ContractSummary,
    policy: PolicyRecord,
    trials: u32,
    scoring_version: String,
    comparability_key: String,
    clean_traces: usize,
    skipped_traces: Vec<SkippedTrace>,
    probes: BTreeMap<ProbeClass, u64>,
    authored_probes: usize,
    skipped_probes: Vec<SkippedProbe>,
    input_errors: u64,
    /// Notes on the inputs (`repeated-input`, `empty-trace-id`,
    /// `repeated-trace-id`), as `pactum grade` gives them.
    warnings: Vec<Warning>,
    /// The worst verdict of the contracts below.
    verdict: Ladder,
    contracts: Vec<ContractStrength>,
}

/// `pactum strength`: contracts + clean traces (+ authored probes) →
/// artifacts per contract and a summary; exit 0 PASS, 1 FAIL, 3 CONCERNS
/// (the worst contract's verdict), 5 when some trace records could not be
/// read, 2 on bad input.
pub fn strength(args: StrengthArgs, color: bool) -> Exit {
    let diag_color = stderr_color(color);
    let Some((policy, _)) = policy_or_default(args.policy.as_deref(), diag_color) else {
        return Exit::Usage;
    };
    let trials = args.trials.unwrap_or(policy.minimum_trials).max(1);
    let opts = match import_options(&args.import) {
        Ok(o) => o,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let contract_files = match pactum_suite::contract_files(&args.contracts) {
        Ok(f) => f,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let mut measured: Vec<(LoadedContract, CompiledContract)> = Vec::new();
    for p in &contract_files {
        match load_one_contract(p, diag_color) {
            Some(c) => measured.push(c),
            None => return Exit::Usage,
        }
    }
    let mut ids: BTreeMap<&str, &Path> = BTreeMap::new();
    for (c, _) in &measured {
        if let Some(first) = ids.insert(&c.contract.id, &c.path) {
            eprint(&format!(
                "error: contract id `{}` is declared twice: {} and {} (each contract's artifacts go to a folder named after its id)",
                one_line(&c.contract.id, 120),
                first.display(),
                c.path.display()
            ));
            return Exit::Usage;
        }
    }
    let Some(first) = measured.first().cloned() else {
        eprint("error: no contract given");
        return Exit::Usage;
    };
    let reference = match &args.probes_from {
        None => first,
        Some(p) => match load_one_contract(p, diag_color) {
            Some(r) => r,
            None => return Exit::Usage,
        },
    };
    // Every artifact folder, checked before anything is read or written:
    // none may hold an input or the store.
    let several = measured.len() > 1;
    let folders: Vec<PathBuf> = measured
        .iter()
        .map(|(loaded, _)| {
            let folder = artifact_file_name(&loaded.contract.id)
                .trim_end_matches(".json")
                .to_string();
            match (&args.out, several) {
                (Some(dir), false) => dir.clone(),
                (Some(dir), true) => dir.join(folder),
                (None, _) => Path::new(".pactum").join("strength").join(folder),
            }
        })
        .collect();
    let mut protected: Vec<Protected> =
        crate::grade::contract_protected(measured.iter().map(|(c, _)| c).chain([&reference.0]));
    for (what, paths) in [
        ("the contract", &contract_files),
        ("the trace file", &args.traces),
        ("the probe file", &args.probes),
    ] {
        protected.extend(paths.iter().map(|p| Protected::input(what, p)));
    }
    protected.extend(
        args.policy
            .iter()
            .map(|p| Protected::input("the policy", p)),
    );
    protected.extend(
        args.probes_from
            .iter()
            .map(|p| Protected::input("the contract", p)),
    );
    protected.push(crate::grade::store_protected(None));
    let outputs: Vec<Output> = folders.iter().map(|f| Output::folder("--out", f)).collect();
    if let Err(e) = pactum_report::check_outputs(&outputs, &protected) {
        eprint(&format!("error: {e}"));
        return Exit::Usage;
    }
    for t in &args.traces {
        if t.is_dir() {
            eprint(&format!(
                "error: {}: is a folder; name the trace files",
                t.display()
            ));
            return Exit::Usage;
        }
        if let Some(why) = crate::grade::unusable_trace_path(t) {
            eprint(&format!("error: {}: {why}", t.display()));
            return Exit::Usage;
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
    let mut clean: Vec<Trace> = Vec::new();
    let mut skipped_traces = Vec::new();
    let mut input_errors = 0u64;
    let mut notes = InputNotes::default();
    for path in &args.traces {
        if !notes.file_once(path) {
            continue;
        }
        let mut sink = |item: Item| {
            match item {
                Item::Trace(t) => {
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
                    eprint(&format!("error: {e}"));
                }
                Item::Skipped { .. } => {}
            }
            ControlFlow::Continue(())
        };
        if let Err(e) = read_traces(path, &opts, &mut sink) {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for t in &clean {
        if !seen.insert(&t.id) {
            eprint(&format!(
                "error: two clean traces share the id `{}`: probe ids are built from trace ids, so they must be unique (--id-field picks another field)",
                one_line(&t.id, 120)
            ));
            return Exit::Usage;
        }
    }

    let generator = match Generator::new(reference.1.clone()) {
        Ok(g) => g,
        Err(e) => {
            eprint(&format!("error: {}: {e}", reference.0.path.display()));
            return Exit::Usage;
        }
    };
    let mut cases: Vec<ProbeCase> = Vec::new();
    let mut skipped_probes = Vec::new();
    for t in &clean {
        let g = generator.generate(t);
        cases.extend(g.cases);
        skipped_probes.extend(g.skipped);
    }
    let mut authored = 0usize;
    for p in &args.probes {
        match load_probe_file(p, &opts, &mut notes) {
            Ok(found) => {
                authored += found.len();
                cases.extend(found);
            }
            Err(diags) => {
                print_diagnostics(&diags, diag_color);
                return Exit::Usage;
            }
        }
    }
    let mut probe_ids: BTreeSet<&str> = BTreeSet::new();
    for c in &cases {
        if !probe_ids.insert(&c.probe.id) {
            eprint(&format!(
                "error: probe id `{}` is declared twice (an authored probe reuses a generated id, or two probe files share it)",
                one_line(&c.probe.id, 120)
            ));
            return Exit::Usage;
        }
    }
    if cases.is_empty() {
        eprint(&format!(
            "error: nothing to measure: {} trace(s) read, none passes every contract given (a probe needs a clean baseline), and no authored probe was given",
            skipped_traces.len()
        ));
        return Exit::Usage;
    }

    let scoring = scoring_inputs(&clean, &cases, &policy, None);
    let mut results = Vec::new();
    for ((loaded, contract), out) in measured.iter().zip(folders) {
        let outcomes = grade_all(contract, &cases, trials, &policy);
        let graded: Vec<(&ProbeCase, Vec<TrialOutcome>)> = cases.iter().zip(outcomes).collect();
        let artifacts = match score(contract, &policy, &scoring, graded) {
            Ok(a) => a,
            Err(e) => {
                eprint(&format!(
                    "error: scoring {} failed: {e}",
                    loaded.contract.id
                ));
                return Exit::Usage;
            }
        };
        if let Err(e) = write_run(&out, &artifacts, &cases) {
            eprint(&format!("error: {}", with_causes(&e)));
            // A folder pactum may not write into is refused before anything
            // is written; a failure while writing is the disk's.
            return match e {
                pactum_report::ReportError::ForeignFile { .. }
                | pactum_report::ReportError::NotAFolder { .. }
                | pactum_report::ReportError::BadName { .. } => Exit::Usage,
                _ => Exit::Failure,
            };
        }
        results.push(contract_strength(loaded, &out, &artifacts));
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
        warnings: crate::grade::input_warnings(&notes),
        verdict: results
            .iter()
            .map(|r| r.verdict)
            .max()
            .unwrap_or(Ladder::Pass),
        contracts: results,
    };
    let mut stdout = std::io::stdout().lock();
    let printed = if args.json {
        writeln!(
            stdout,
            "{}",
            pactum_report::terminal_safe_json(&canonical_json(&summary))
        )
    } else {
        stdout.write_all(render_summary(&summary).as_bytes())
    };
    drop(printed);
    if input_errors > 0 {
        return Exit::Partial;
    }
    match summary.verdict {
        Ladder::Pass => Exit::Pass,
        Ladder::Concerns => Exit::Incomplete,
        Ladder::Fail => Exit::Fail,
    }
}

/// Grades every probe in `trials` trials, on every core the machine has;
/// results come back in probe order whatever the scheduling.
fn grade_all(
    contract: &CompiledContract,
    cases: &[ProbeCase],
    trials: u32,
    policy: &Policy,
) -> Vec<Vec<TrialOutcome>> {
    let chunk = cases.len().div_ceil(workers()).max(1);
    let mut out: Vec<Vec<TrialOutcome>> = Vec::with_capacity(cases.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                (
                    part.len(),
                    s.spawn(move || {
                        part.iter()
                            .map(|c| run_trials(contract, c, trials, policy, &NoJudge))
                            .collect::<Vec<_>>()
                    }),
                )
            })
            .collect();
        for (n, h) in handles {
            // A worker only panics on a bug; its probes then have no
            // trial, which the ladder reports as a broken measurement.
            match h.join() {
                Ok(v) => out.extend(v),
                Err(_) => out.extend(std::iter::repeat_with(Vec::new).take(n)),
            }
        }
    });
    out
}

/// Writes one artifact per probe and the probe set into `dir`, replacing
/// or deleting only files an earlier pactum run wrote there (listed in the
/// folder's manifest, [`pactum_report::OutputFolder`]); any other file is
/// kept, and one pactum would have to replace is refused before anything
/// is written.
fn write_run(
    dir: &Path,
    artifacts: &[EvidenceArtifact],
    cases: &[ProbeCase],
) -> Result<(), pactum_report::ReportError> {
    let mut names: BTreeSet<String> = artifacts
        .iter()
        .map(|a| artifact_file_name(&a.probe.id))
        .collect();
    names.insert(PROBE_SET_FILE.to_string());
    let folder = OutputFolder::prepare(dir, names)?;
    // Canonicalising is most of the cost: spread it over the cores. Each
    // file's bytes depend on its artifact alone, so the order of work
    // never shows in the output.
    let folder_ref = &folder;
    let write_artifacts = |part: &[EvidenceArtifact]| -> Result<(), pactum_report::ReportError> {
        for a in part {
            folder_ref.write(&artifact_file_name(&a.probe.id), &a.canonical_bytes())?;
        }
        Ok(())
    };
    let lost = |what: &str| pactum_report::ReportError::Create {
        path: dir.to_path_buf(),
        source: std::io::Error::other(what.to_string()),
    };
    let mut sorted: Vec<&ProbeCase> = cases.iter().collect();
    sorted.sort_by(|a, b| a.probe.id.cmp(&b.probe.id));
    let lines = |part: &[&ProbeCase]| -> String {
        let mut out = String::new();
        for c in part {
            // Plain serde_json: deterministic for the same inputs, and
            // several times faster than canonicalising 20 MB of traces.
            // The artifacts, which are digested, are the canonical ones.
            out.push_str(&pactum_report::terminal_safe_json(
                &serde_json::to_string(c).unwrap_or_else(|_| "null".into()),
            ));
            out.push('\n');
        }
        out
    };
    let chunk = artifacts.len().div_ceil(workers()).max(1);
    let line_chunk = sorted.len().div_ceil(workers()).max(1);
    let (written, probe_lines) = std::thread::scope(|s| {
        let writers: Vec<_> = artifacts
            .chunks(chunk)
            .map(|part| s.spawn(move || write_artifacts(part)))
            .collect();
        let liners: Vec<_> = sorted
            .chunks(line_chunk)
            .map(|part| s.spawn(move || lines(part)))
            .collect();
        let written: Result<(), pactum_report::ReportError> =
            writers.into_iter().try_for_each(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(lost("writing an artifact failed")))
            });
        let probe_lines: Option<String> = liners.into_iter().map(|h| h.join().ok()).collect();
        (written, probe_lines)
    });
    written?;
    let probe_lines = probe_lines.ok_or_else(|| lost("listing the probes failed"))?;
    folder.write(PROBE_SET_FILE, probe_lines.as_bytes())?;
    folder.finish()
}

/// Threads for the parallel phases: the machine's cores, at most 8.
fn workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 8)
}

fn reason_name(r: &LadderReason) -> &'static str {
    match r {
        LadderReason::BrokenMeasurement { .. } => "broken-measurement",
        LadderReason::MissedProbe { .. } => "missed-probe",
        LadderReason::CanaryNotConfirmed { .. } => "canary-not-confirmed",
        LadderReason::CleanControlFailed { .. } => "clean-control-failed",
        LadderReason::TooFewTrials { .. } => "too-few-trials",
        LadderReason::UnreachedOracle { .. } => "unreached-oracle",
        LadderReason::ProbeUnexercised { .. } => "probe-unexercised",
        LadderReason::CleanControlUnstable { .. } => "clean-control-unstable",
        LadderReason::CoverageGap { .. } => "coverage-gap",
        LadderReason::Caught { .. } => "caught",
        LadderReason::CanaryConfirmed { .. } => "canary-confirmed",
        LadderReason::CleanControlPassed { .. } => "clean-control-passed",
    }
}

/// Why a missed probe was not caught: the reason of its first voted trial
/// that was not a catch.
fn why_missed(a: &EvidenceArtifact) -> String {
    a.outcomes
        .iter()
        .find(|o| o.state.group() == TrialGroup::Voted && !o.state.is_catch())
        .map_or_else(String::new, |o| {
            format!(
                "{}: {}",
                o.state.as_str(),
                o.reason.as_deref().unwrap_or("no reason recorded")
            )
        })
}

fn contract_summary(c: &LoadedContract) -> ContractSummary {
    ContractSummary {
        id: c.contract.id.clone(),
        digest: c.digest.clone(),
        path: c.path.display().to_string(),
    }
}

/// One contract's vector, verdict (the worst artifact's), basis counts,
/// missed probes and coverage gaps.
fn contract_strength(
    loaded: &LoadedContract,
    out: &Path,
    artifacts: &[EvidenceArtifact],
) -> ContractStrength {
    let probes: Vec<(&str, ProbeClass, &pactum_core::strength::ReducedProbe)> = artifacts
        .iter()
        .map(|a| (a.probe.id.as_str(), a.probe.class, &a.reduced))
        .collect();
    // Coverage gaps are the run's, recorded alike in every artifact: count
    // them once, not once per probe.
    let mut counts: BTreeMap<(std::cmp::Reverse<Ladder>, &'static str), u64> = BTreeMap::new();
    for a in artifacts {
        for r in a
            .basis
            .iter()
            .filter(|r| !matches!(r, LadderReason::CoverageGap { .. }))
        {
            *counts
                .entry((std::cmp::Reverse(r.rung()), reason_name(r)))
                .or_default() += 1;
        }
    }
    let coverage_gaps = artifacts
        .first()
        .map(|a| a.coverage_gaps.clone())
        .unwrap_or_default();
    for g in &coverage_gaps {
        let rung = if g.at_or_above_floor {
            Ladder::Concerns
        } else {
            Ladder::Pass
        };
        *counts
            .entry((std::cmp::Reverse(rung), "coverage-gap"))
            .or_default() += 1;
    }
    // Worst first: defects before laziness, high severity before low.
    let mut worst: Vec<&EvidenceArtifact> = artifacts.iter().collect();
    worst.sort_by(|a, b| {
        (
            a.probe.class,
            std::cmp::Reverse(a.probe.severity),
            &a.probe.id,
        )
            .cmp(&(
                b.probe.class,
                std::cmp::Reverse(b.probe.severity),
                &b.probe.id,
            ))
    });
    let missed = worst
        .into_iter()
        .filter(|a| {
            a.probe.class.strength_class().is_some() && a.reduced.exercised() && !a.reduced.caught
        })
        .map(|a| Missed {
            probe_id: a.probe.id.clone(),
            class: a.probe.class,
            severity: a.probe.severity,
            targets: a.probe.targets.clone(),
            mutation: a.probe.mutation.clone(),
            why: why_missed(a),
        })
        .collect();
    ContractStrength {
        contract: contract_summary(loaded),
        out: out.display().to_string(),
        strength: strength_vector(&probes),
        verdict: artifacts
            .iter()
            .map(|a| a.verdict)
            .max()
            .unwrap_or(Ladder::Pass),
        basis: counts
            .into_iter()
            .map(|((rung, reason), count)| BasisCount {
                rung: rung.0,
                reason: reason.to_string(),
                count,
            })
            .collect(),
        missed,
        coverage_gaps,
    }
}

fn rate_text(r: &ClassRate) -> String {
    r.rate
        .map_or_else(|| "null".to_string(), |x| format!("{x:.2}"))
}

fn vector_lines(v: &StrengthVector, indent: &str) -> String {
    let mut s = String::new();
    for c in StrengthClass::ALL {
        let r = v.get(c);
        s.push_str(&format!(
            "{indent}{:<12} {:>9}  rate {:<5} {}\n",
            c.as_str(),
            format!("{}/{}", r.caught, r.exercised),
            rate_text(r),
            r.denominator
        ));
    }
    s
}

fn line(x: &str) -> String {
    one_line(x, 200)
}

fn render_summary(s: &StrengthSummary) -> String {
    let mut o = String::new();
    let total: u64 = s.probes.values().sum();
    let classes: Vec<String> = s.probes.iter().map(|(c, n)| format!("{n} {c}")).collect();
    o.push_str(&format!(
        "probe set: planted from the clauses of {} ({})\n",
        line(&s.probes_from.id),
        line(&s.probes_from.path)
    ));
    o.push_str(&format!(
        "  clean traces: {} used as baselines, {} skipped (a baseline passes every contract given)\n",
        s.clean_traces,
        s.skipped_traces.len()
    ));
    if !s.skipped_traces.is_empty() {
        let mut by: BTreeMap<(&str, &str), u64> = BTreeMap::new();
        for t in &s.skipped_traces {
            let why = if t.selected {
                t.status.as_str()
            } else {
                "not selected"
            };
            *by.entry((t.contract.as_str(), why)).or_default() += 1;
        }
        let parts: Vec<String> = by
            .iter()
            .map(|((c, why), n)| format!("{n} {why} by {}", line(c)))
            .collect();
        o.push_str(&format!("    skipped: {}\n", parts.join(", ")));
        for t in s.skipped_traces.iter().filter(|t| t.selected).take(3) {
            o.push_str(&format!(
                "    {}  {}: {}\n",
                line(&t.trace_id),
                t.status.label(),
                one_line(&t.summary, 120)
            ));
        }
    }
    o.push_str(&format!(
        "  probes: {total} × {} trial(s) each ({}; {} authored); {} could not be built\n",
        s.trials,
        classes.join(", "),
        s.authored_probes,
        s.skipped_probes.len()
    ));
    if !s.skipped_probes.is_empty() {
        let mut by: BTreeMap<(ProbeClass, &str, &str), u64> = BTreeMap::new();
        for p in &s.skipped_probes {
            *by.entry((p.class, p.kind.as_str(), p.reason.as_str()))
                .or_default() += 1;
        }
        let mut rows: Vec<_> = by.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        for ((class, kind, reason), n) in rows.iter().take(5) {
            o.push_str(&format!(
                "    {n} × {class} {}: {}\n",
                line(kind),
                one_line(reason, 140)
            ));
        }
        if rows.len() > 5 {
            o.push_str(&format!("    and {} more reason(s)\n", rows.len() - 5));
        }
    }
    o.push_str(&format!(
        "  policy {}: severity floor {}, catch threshold {}, minimum trials {}\n",
        s.policy.digest,
        s.policy.severity_floor.as_str(),
        s.policy.catch_threshold,
        s.policy.minimum_trials
    ));
    o.push_str(&format!("  scoring version {}\n", s.scoring_version));
    for c in &s.contracts {
        o.push('\n');
        render_contract(&mut o, c);
    }
    if !s.warnings.is_empty() {
        o.push_str(&format!("\nwarnings ({}):\n", s.warnings.len()));
        for w in &s.warnings {
            o.push_str(&format!("  {}: {}\n", line(&w.code), line(&w.message)));
        }
    }
    o
}

fn render_contract(o: &mut String, c: &ContractStrength) {
    o.push_str(&format!(
        "strength of {} ({})\n",
        line(&c.contract.id),
        line(&c.contract.path)
    ));
    o.push_str("  vector (distinct probes caught / exercised, per class; never one score)\n");
    o.push_str(&vector_lines(&c.strength, "    "));
    o.push_str(&format!("  verdict {}\n", c.verdict.label()));
    let mut rungs: BTreeMap<std::cmp::Reverse<Ladder>, Vec<String>> = BTreeMap::new();
    for b in &c.basis {
        rungs
            .entry(std::cmp::Reverse(b.rung))
            .or_default()
            .push(format!("{} ×{}", b.reason, b.count));
    }
    for (rung, reasons) in rungs {
        o.push_str(&format!(
            "    {:<9} {}\n",
            rung.0.label(),
            reasons.join(", ")
        ));
    }
    if c.missed.is_empty() {
        o.push_str("  missed probes: none\n");
    } else {
        o.push_str(&format!(
            "  missed probes ({}; the mutation that slipped through)\n",
            c.missed.len()
        ));
        for m in c.missed.iter().take(SHOWN) {
            o.push_str(&format!(
                "    {}  [{} {}{}]\n        {}\n        → {}\n",
                line(&m.probe_id),
                m.class.as_str(),
                m.severity.as_str(),
                m.targets
                    .as_deref()
                    .map_or_else(String::new, |t| format!(", targets {}", line(t))),
                one_line(&m.mutation, 300),
                one_line(&m.why, 200)
            ));
        }
        if c.missed.len() > SHOWN {
            o.push_str(&format!(
                "    and {} more (--json lists them all)\n",
                c.missed.len() - SHOWN
            ));
        }
    }
    if c.coverage_gaps.is_empty() {
        o.push_str("  coverage gaps: none\n");
    } else {
        o.push_str("  coverage gaps (clauses the probe set did not measure)\n");
        for g in &c.coverage_gaps {
            o.push_str(&format!(
                "    {} ({}): {}{}\n",
                line(&g.clause_id),
                g.severity.as_str(),
                canonical_json(&g.kind).trim_matches('"'),
                if g.at_or_above_floor {
                    ", at or above the floor"
                } else {
                    ", below the floor"
                }
            ));
        }
    }
    o.push_str(&format!("  artifacts written to {}\n", line(&c.out)));
}

// ---------------------------------------------------------------------------
// Reading artifact sets
// ---------------------------------------------------------------------------

/// The artifact files named by `args`: a folder's top-level `*.json`
/// files (sorted by name), a file as given.
fn artifact_files(args: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in args {
        if p.is_dir() {
            // What pactum wrote there, when the folder says so: a file of
            // the user's beside the artifacts is not read as one.
            let listed = OutputFolder::listed(p).map_err(|e| with_causes(&e))?;
            let mut files: Vec<PathBuf> = fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "json"))
                .filter(|f| {
                    listed.as_ref().is_none_or(|l| {
                        f.file_name()
                            .is_some_and(|n| l.contains(n.to_string_lossy().as_ref()))
                    })
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(format!(
                    "{}: the folder holds no strength artifact (*.json); name the --out folder of a `pactum strength` run",
                    p.display()
                ));
            }
            out.extend(files);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or folder", p.display()));
        }
    }
    Ok(out)
}

fn read_artifacts(files: &[PathBuf]) -> Result<Vec<EvidenceArtifact>, String> {
    files
        .iter()
        .map(|f| {
            let bytes = fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
            serde_json::from_slice::<EvidenceArtifact>(&bytes).map_err(|e| {
                // An artifact of another format version fails on its first
                // changed field; name the version instead.
                let version = serde_json::from_slice::<serde_json::Value>(&bytes)
                    .ok()
                    .and_then(|v| v.get("version").and_then(serde_json::Value::as_u64));
                let current = u64::from(pactum_core::strength::STRENGTH_ARTIFACT_VERSION);
                if let Some(v) = version.filter(|v| *v != current) {
                    let fix = if v > current {
                        "a newer pactum wrote it: upgrade pactum to read it"
                    } else {
                        "run `pactum strength` again to regenerate it"
                    };
                    return format!(
                        "{}: a strength artifact of format version {v}; this pactum reads version {current}: {fix}",
                        f.display()
                    );
                }
                format!(
                    "{}:{}:{}: not a strength artifact: {}",
                    f.display(),
                    e.line(),
                    e.column(),
                    one_line(&e.to_string(), 200)
                )
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------
// pactum aggregate
// ---------------------------------------------------------------------------

fn parse_floors(items: &[String], mut floors: ClassFloors) -> Result<ClassFloors, String> {
    for item in items {
        let Some((class, value)) = item.split_once('=') else {
            return Err(format!(
                "--floors: `{}` is not CLASS=RATE (e.g. defect=0.75)",
                one_line(item, 60)
            ));
        };
        let rate: f64 = value.trim().parse().map_err(|_| {
            format!(
                "--floors: `{}` is not a number (a rate in [0, 1])",
                one_line(value, 60)
            )
        })?;
        match class.trim() {
            "defect" => floors.defect = Some(rate),
            "gameability" => floors.gameability = Some(rate),
            "zero_action" => floors.zero_action = Some(rate),
            other => {
                return Err(format!(
                    "--floors: unknown class `{}` (defect, gameability or zero_action)",
                    one_line(other, 60)
                ))
            }
        }
    }
    Ok(floors)
}

/// Which file each artifact position named in `text` (`#12`) came from.
fn legend(text: &str, files: &[PathBuf]) -> String {
    let mut idx: Vec<usize> = Vec::new();
    // The core writes a position as ` #12 (probe id)`; a `#` inside a
    // probe id (`…/remove-text#2`) follows no space.
    for part in text.split(" #").skip(1) {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(i) = digits.parse::<usize>() {
            if part[digits.len()..].starts_with(" (") && !idx.contains(&i) {
                idx.push(i);
            }
        }
    }
    idx.sort_unstable();
    let mut out: String = idx
        .iter()
        .take(SHOWN * 2)
        .filter_map(|i| files.get(*i).map(|f| format!("  #{i} = {}\n", f.display())))
        .collect();
    if idx.len() > SHOWN * 2 {
        out.push_str(&format!("  and {} more\n", idx.len() - SHOWN * 2));
    }
    out
}

/// `pactum aggregate`: run-wide class rates against declared floors;
/// exit 0 every declared floor met, 1 one not met, 4 refused (nothing on
/// stdout), 2 bad input.
pub fn aggregate_cmd(args: AggregateArgs, color: bool) -> Exit {
    let diag_color = stderr_color(color);
    let loaded = match load_policy(&args.policy) {
        Ok(p) => p,
        Err(diags) => {
            print_diagnostics(&diags, diag_color);
            return Exit::Usage;
        }
    };
    let floors = match parse_floors(&args.floors, loaded.floors) {
        Ok(f) => f,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let files = match artifact_files(&args.artifacts) {
        Ok(f) => f,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let artifacts = match read_artifacts(&files) {
        Ok(a) => a,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let agg = match aggregate(
        &artifacts,
        &loaded.policy,
        &floors,
        env!("CARGO_PKG_VERSION"),
    ) {
        Ok(a) => a,
        Err(refusal) => {
            let mut msg = format!(
                "error: refused to aggregate {} artifact(s): the set is not one consistent measurement\n",
                artifacts.len()
            );
            let mut shown = String::new();
            for r in refusal.reasons.iter().take(SHOWN) {
                shown.push_str(&format!("  - {}\n", one_line(&r.to_string(), 600)));
            }
            if refusal.reasons.len() > SHOWN {
                shown.push_str(&format!(
                    "  and {} more reason(s)\n",
                    refusal.reasons.len() - SHOWN
                ));
            }
            msg.push_str(&shown);
            let l = legend(&shown, &files);
            if !l.is_empty() {
                msg.push_str("where\n");
                msg.push_str(&l);
            }
            eprint(&msg);
            return Exit::Refused;
        }
    };
    let mut stdout = std::io::stdout().lock();
    let _ = if args.json {
        writeln!(
            stdout,
            "{}",
            pactum_report::terminal_safe_json(&canonical_json(&agg))
        )
    } else {
        stdout.write_all(render_aggregate(&agg, files.len()).as_bytes())
    };
    if agg.classes.iter().any(|c| c.meets_floor == Some(false)) {
        Exit::Fail
    } else {
        Exit::Pass
    }
}

/// One shortfall as a sentence (the JSON output keeps the structure).
fn shortfall_text(s: &pactum_core::strength::FloorShortfall) -> String {
    use pactum_core::strength::FloorShortfall as F;
    let ids = |p: &[String]| {
        let shown: Vec<String> = p.iter().take(5).map(|i| one_line(i, 80)).collect();
        let more = p.len().saturating_sub(shown.len());
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    match s {
        F::NoEligibleProbe => "no probe of this class in the set".into(),
        F::NotComparable { probes } => format!(
            "{} probe(s) not comparable (too few trials or an unreached oracle): {}",
            probes.len(),
            ids(probes)
        ),
        F::Unexercised { probes } => format!(
            "{} probe(s) with no valid vote: {}",
            probes.len(),
            ids(probes)
        ),
        F::BelowFloor { rate, floor } => format!("rate {rate:.3} is below the floor {floor}"),
    }
}

fn render_aggregate(a: &Aggregate, files: usize) -> String {
    let mut o = format!(
        "aggregate of {files} artifact(s): contract {} ({})\n  policy {}, scoring version {}\n\n",
        one_line(&a.contract.id, 120),
        a.contract.digest,
        a.policy.digest,
        a.scoring_version
    );
    o.push_str("class rates against floors\n");
    for d in &a.classes {
        let r = a.strength.get(d.class);
        let verdict = match d.meets_floor {
            None => "no floor".to_string(),
            Some(true) => format!("meets floor {}", d.floor.unwrap_or_default()),
            Some(false) => format!("BELOW floor {}", d.floor.unwrap_or_default()),
        };
        o.push_str(&format!(
            "  {:<12} {:>9}  rate {:<5} {verdict}\n",
            d.class.as_str(),
            format!("{}/{}", r.caught, r.exercised),
            rate_text(r)
        ));
        for s in &d.shortfalls {
            // The class line already says BELOW floor.
            if matches!(s, pactum_core::strength::FloorShortfall::BelowFloor { .. }) {
                continue;
            }
            o.push_str(&format!("      {}\n", shortfall_text(s)));
        }
    }
    o.push_str(&format!(
        "\nworst artifact verdict {}; {} missed probe(s)\n",
        a.verdict.label(),
        a.missed_probes.len()
    ));
    for m in a.missed_probes.iter().take(SHOWN) {
        o.push_str(&format!(
            "  {}  [{} {}]: {}\n",
            one_line(&m.probe_id, 160),
            m.class.as_str(),
            m.severity.as_str(),
            one_line(&m.mutation, 200)
        ));
    }
    if a.missed_probes.len() > SHOWN {
        o.push_str(&format!(
            "  and {} more (--json lists them all)\n",
            a.missed_probes.len() - SHOWN
        ));
    }
    o
}

// ---------------------------------------------------------------------------
// pactum compare
// ---------------------------------------------------------------------------

/// What `pactum compare --json` prints.
#[derive(Debug, Serialize)]
struct CompareSummary {
    version: u32,
    command: &'static str,
    dominance: Dominance,
    reason: ComparisonReason,
    explanation: String,
    a: SideSummary,
    b: SideSummary,
    policy: PolicyRecord,
}

#[derive(Debug, Serialize)]
struct SideSummary {
    path: String,
    contracts: Vec<ContractRef>,
    artifacts: usize,
    /// `null` when the side is not one consistent measurement.
    strength: Option<StrengthVector>,
}

fn side_summary(path: &Path, set: &[EvidenceArtifact], v: Option<StrengthVector>) -> SideSummary {
    let contracts: BTreeSet<ContractRef> = set.iter().map(|a| a.contract.clone()).collect();
    SideSummary {
        path: path.display().to_string(),
        contracts: contracts.into_iter().collect(),
        artifacts: set.len(),
        strength: v,
    }
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::A => "A",
        Side::B => "B",
    }
}

fn classes(list: &[StrengthClass]) -> String {
    list.iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn explain(r: &ComparisonReason) -> String {
    match r {
        ComparisonReason::Inconsistent { side, problems } => {
            let p: Vec<String> = problems.iter().take(3).map(ToString::to_string).collect();
            format!(
                "{} is not one consistent measurement: {}",
                side_name(*side),
                one_line(&p.join("; "), 400)
            )
        }
        ComparisonReason::KeyMismatch { a, b } => format!(
            "the comparability keys differ (A {a}, B {b}): the two sets were scored on other probes or under another policy"
        ),
        ComparisonReason::NotComparable { a, b } => format!(
            "probes that are not comparable (too few trials or an unreached oracle): {} in A, {} in B",
            a.len(),
            b.len()
        ),
        ComparisonReason::ProbeMismatch { probes } => format!(
            "{} probe id(s) declare different probes on the two sides (first: {})",
            probes.len(),
            probes.first().map_or("", |p| p.as_str())
        ),
        ComparisonReason::IdenticalCounts => {
            "identical caught and exercised counts in every class".into()
        }
        ComparisonReason::NoCommonClass => "no class is measured on both sides".into(),
        ComparisonReason::Dominates { winner, higher } => format!(
            "{} catches at least as large a share in every measured class, and a larger one in {}",
            side_name(*winner),
            classes(higher)
        ),
        ComparisonReason::Mixed { a_higher, b_higher } => format!(
            "each is stronger somewhere: A in {}, B in {}",
            classes(a_higher),
            classes(b_higher)
        ),
        ComparisonReason::EqualRatesDifferentCounts { classes: c } => format!(
            "the rates tie where both are measured, but the counts differ in {}",
            classes(c)
        ),
        ComparisonReason::SeverityFloorVeto {
            would_dominate,
            probes,
        } => {
            let shown: Vec<String> = probes
                .iter()
                .take(3)
                .map(|p| format!("{} ({})", one_line(&p.probe_id, 120), p.severity.as_str()))
                .collect();
            format!(
                "the rates favour {}, but it missed {} probe(s) at or above the severity floor that the other side caught ({}): no dominance",
                side_name(*would_dominate),
                probes.len(),
                shown.join(", ")
            )
        }
    }
}

/// `pactum compare A B`: the four-valued dominance of two artifact sets;
/// exit 0 whenever the comparison was made (whatever its answer), 2 on
/// bad input.
pub fn compare_cmd(args: CompareArgs, color: bool) -> Exit {
    let diag_color = stderr_color(color);
    let read = |p: &PathBuf| -> Result<(Vec<PathBuf>, Vec<EvidenceArtifact>), String> {
        let files = artifact_files(std::slice::from_ref(p))?;
        let a = read_artifacts(&files)?;
        Ok((files, a))
    };
    let (a, b) = match (read(&args.a), read(&args.b)) {
        (Ok((_, a)), Ok((_, b))) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let policy = match &args.policy {
        Some(p) => match load_policy(p) {
            Ok(l) => l.policy,
            Err(diags) => {
                print_diagnostics(&diags, diag_color);
                return Exit::Usage;
            }
        },
        None => match a.first().or(b.first()) {
            Some(x) => x.policy.policy(),
            None => {
                eprint("error: neither side holds an artifact");
                return Exit::Usage;
            }
        },
    };
    let (a, b) = (EvidenceSet::new(a), EvidenceSet::new(b));
    let Comparison {
        dominance,
        reason,
        a: va,
        b: vb,
    } = compare(&a, &b, &policy);
    let summary = CompareSummary {
        version: SUMMARY_VERSION,
        command: "compare",
        dominance,
        explanation: explain(&reason),
        reason,
        a: side_summary(&args.a, &a.artifacts, va),
        b: side_summary(&args.b, &b.artifacts, vb),
        policy: PolicyRecord::of(&policy),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = if args.json {
        writeln!(
            stdout,
            "{}",
            pactum_report::terminal_safe_json(&canonical_json(&summary))
        )
    } else {
        stdout.write_all(render_compare(&summary).as_bytes())
    };
    Exit::Pass
}

fn render_compare(s: &CompareSummary) -> String {
    let mut o = format!("{}: {}\n", s.dominance.as_str(), s.explanation);
    let verdict = match s.dominance {
        Dominance::ADominatesB => "A is the stronger contract",
        Dominance::BDominatesA => "B is the stronger contract",
        Dominance::Equivalent => "neither is stronger",
        Dominance::Incomparable => "no order between them",
    };
    o.push_str(&format!("  ({verdict})\n\n"));
    for (name, side) in [("A", &s.a), ("B", &s.b)] {
        let ids: Vec<String> = side.contracts.iter().map(|c| one_line(&c.id, 80)).collect();
        o.push_str(&format!(
            "{name}  {}  contract {}  ({} artifact(s))\n",
            one_line(&side.path, 160),
            ids.join(", "),
            side.artifacts
        ));
        match &side.strength {
            Some(v) => o.push_str(&vector_lines(v, "   ")),
            None => o.push_str("   (no vector: the set is inconsistent)\n"),
        }
    }
    o.push_str(&format!(
        "\npolicy {} (severity floor {})\n",
        s.policy.digest,
        s.policy.severity_floor.as_str()
    ));
    o
}
