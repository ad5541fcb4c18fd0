//! What `pactum strength`, `pactum aggregate` and `pactum compare` print
//! (SPEC §3.8; `docs/strength.md`): the summary models their `--json`
//! prints, and the text renderers, pure functions of those models. The
//! scoring rules live in `pactum_core::strength`; the pipelines that
//! fill these models live in `pactum-pipeline`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use pactum_core::digest::canonical_json;
use pactum_core::strength::{
    strength_vector, Aggregate, AggregateRefusal, ClassRate, ComparisonReason, ContractRef,
    CoverageGap, Dominance, EvidenceArtifact, FloorShortfall, Ladder, LadderReason, PolicyRecord,
    ProbeClass, ReducedProbe, Side, StrengthClass, StrengthVector, TrialGroup,
};
use pactum_core::text::one_line;
use pactum_core::{Severity, TestStatus};
use pactum_probe::SkippedProbe;
use serde::Serialize;

use crate::Warning;

/// The version of the summaries `--json` prints ([`StrengthSummary`],
/// [`CompareSummary`]).
pub const SUMMARY_VERSION: u32 = 1;

/// Missed probes, skipped items and refusal reasons the text renderers
/// list; `--json` lists every one.
pub const SHOWN: usize = 10;

/// A trace that could not serve as a clean baseline.
#[derive(Debug, Clone, Serialize)]
pub struct SkippedTrace {
    /// The trace's id.
    pub trace_id: String,
    /// The first contract it did not pass.
    pub contract: String,
    /// Whether that contract selects the trace at all (`select`).
    pub selected: bool,
    /// Its status under that contract.
    pub status: TestStatus,
    /// That contract's one-line summary of it.
    pub summary: String,
}

/// A missed probe for the summary: the mutation that slipped through and
/// why the contract let it.
#[derive(Debug, Clone, Serialize)]
pub struct Missed {
    /// The probe's id.
    pub probe_id: String,
    /// Its class.
    pub class: ProbeClass,
    /// Its severity.
    pub severity: Severity,
    /// The clause it targets, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<String>,
    /// The mutation, as a sentence.
    pub mutation: String,
    /// Why it was not caught: the state and reason of its first voted
    /// trial that was not a catch.
    pub why: String,
}

/// How many artifacts of a contract gave one ladder reason.
#[derive(Debug, Clone, Serialize)]
pub struct BasisCount {
    /// The rung the reason sets.
    pub rung: Ladder,
    /// The reason's name (`missed-probe`, `caught`, …).
    pub reason: String,
    /// How many times it was given (coverage gaps once per run).
    pub count: u64,
}

/// A contract file, as the summaries name it.
#[derive(Debug, Clone, Serialize)]
pub struct ContractSummary {
    /// Its id.
    pub id: String,
    /// Its digest.
    pub digest: String,
    /// The path it was read from, as given.
    pub path: String,
}

/// One measured contract of a `pactum strength` run.
#[derive(Debug, Clone, Serialize)]
pub struct ContractStrength {
    /// The contract.
    pub contract: ContractSummary,
    /// Its artifact folder.
    pub out: String,
    /// The strength vector (never one score).
    pub strength: StrengthVector,
    /// The worst artifact's verdict.
    pub verdict: Ladder,
    /// The ladder reasons by rung, worst first.
    pub basis: Vec<BasisCount>,
    /// The missed probes, defects first, then by severity, highest first.
    pub missed: Vec<Missed>,
    /// Every probe scored, canaries and clean controls too, in the same
    /// order (defects first, then by severity, highest first).
    pub probes: Vec<ProbeRow>,
    /// The clauses the probe set did not measure.
    pub coverage_gaps: Vec<CoverageGap>,
}

/// One probe of a contract, as the probe table shows it: what was planted,
/// how its trials voted and what that made it.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeRow {
    /// The probe's id.
    pub probe_id: String,
    /// Its class (canaries and clean controls included).
    pub class: ProbeClass,
    /// Its severity.
    pub severity: Severity,
    /// The clause it targets, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<String>,
    /// The mutation, as a sentence.
    pub mutation: String,
    /// How many trials ended in each state (every state that occurred).
    pub trial_votes: BTreeMap<pactum_core::strength::TrialState, u32>,
    /// Voted trials that were catches, over voted trials.
    pub caught_count: u32,
    /// Voted trials (the denominator).
    pub valid_count: u32,
    /// `caught`, `missed` or `not-exercised` (no trial voted: the probe
    /// counts in no rate) for a strength probe; for a canary or clean
    /// control, `control`.
    pub state: &'static str,
    /// This probe's artifact's ladder verdict.
    pub verdict: Ladder,
}

impl ContractStrength {
    /// One contract's vector, verdict (the worst artifact's), basis
    /// counts, missed probes and coverage gaps, from the artifacts it
    /// wrote into `out`.
    pub fn of(
        contract: ContractSummary,
        out: &Path,
        artifacts: &[EvidenceArtifact],
    ) -> ContractStrength {
        let probes: Vec<(&str, ProbeClass, &ReducedProbe)> = artifacts
            .iter()
            .map(|a| (a.probe.id.as_str(), a.probe.class, &a.reduced))
            .collect();
        // Coverage gaps are the run's, recorded alike in every artifact:
        // count them once, not once per probe.
        let mut counts: BTreeMap<(std::cmp::Reverse<Ladder>, String), u64> = BTreeMap::new();
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
                .entry((std::cmp::Reverse(rung), "coverage-gap".to_string()))
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
        let rows: Vec<ProbeRow> = worst
            .iter()
            .map(|a| ProbeRow {
                probe_id: a.probe.id.clone(),
                class: a.probe.class,
                severity: a.probe.severity,
                targets: a.probe.targets.clone(),
                mutation: a.probe.mutation.clone(),
                trial_votes: a.reduced.trial_votes.clone(),
                caught_count: a.reduced.caught_count,
                valid_count: a.reduced.valid_count,
                state: if a.probe.class.strength_class().is_none() {
                    "control"
                } else if !a.reduced.exercised() {
                    "not-exercised"
                } else if a.reduced.caught {
                    "caught"
                } else {
                    "missed"
                },
                verdict: a.verdict,
            })
            .collect();
        let missed = worst
            .into_iter()
            .filter(|a| {
                a.probe.class.strength_class().is_some()
                    && a.reduced.exercised()
                    && !a.reduced.caught
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
            contract,
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
                    reason,
                    count,
                })
                .collect(),
            missed,
            probes: rows,
            coverage_gaps,
        }
    }
}

/// A ladder reason's name: its tag in the artifact (`missed-probe`, …),
/// read from the one place that spells it, its serde form.
fn reason_name(r: &LadderReason) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.get("reason").and_then(|t| t.as_str().map(str::to_string)))
        .unwrap_or_else(|| "unknown".to_string())
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

/// What `pactum strength --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct StrengthSummary {
    /// [`SUMMARY_VERSION`].
    pub version: u32,
    /// `strength`.
    pub command: &'static str,
    /// The contract whose clauses the defect probes were planted from.
    pub probes_from: ContractSummary,
    /// The scoring policy.
    pub policy: PolicyRecord,
    /// Trials per probe.
    pub trials: u32,
    /// The scoring version (digests the detectors' sources).
    pub scoring_version: String,
    /// The comparability key of the probe set under the policy.
    pub comparability_key: String,
    /// Traces used as clean baselines.
    pub clean_traces: usize,
    /// Traces that could not serve as baselines.
    pub skipped_traces: Vec<SkippedTrace>,
    /// Probes by class.
    pub probes: BTreeMap<ProbeClass, u64>,
    /// How many of them were authored.
    pub authored_probes: usize,
    /// Probes that could not be built.
    pub skipped_probes: Vec<SkippedProbe>,
    /// Trace records that could not be read.
    pub input_errors: u64,
    /// Notes on the inputs (`repeated-input`, `empty-trace-id`,
    /// `repeated-trace-id`), as `pactum grade` gives them.
    pub warnings: Vec<Warning>,
    /// The worst verdict of the contracts below.
    pub verdict: Ladder,
    /// Each measured contract, in the order given.
    pub contracts: Vec<ContractStrength>,
}

/// What `pactum compare --json` prints.
#[derive(Debug, Serialize)]
pub struct CompareSummary {
    /// [`SUMMARY_VERSION`].
    pub version: u32,
    /// `compare`.
    pub command: &'static str,
    /// The four-valued answer.
    pub dominance: Dominance,
    /// Why, as data.
    pub reason: ComparisonReason,
    /// Why, as a sentence ([`explain_comparison`]).
    pub explanation: String,
    /// Side A.
    pub a: SideSummary,
    /// Side B.
    pub b: SideSummary,
    /// The policy compared under.
    pub policy: PolicyRecord,
}

/// One side of a comparison.
#[derive(Debug, Serialize)]
pub struct SideSummary {
    /// The folder or file named.
    pub path: String,
    /// The contracts its artifacts measured (sorted, each once).
    pub contracts: Vec<ContractRef>,
    /// How many artifacts it holds.
    pub artifacts: usize,
    /// `null` when the side is not one consistent measurement.
    pub strength: Option<StrengthVector>,
}

impl SideSummary {
    /// The side named `path`, holding `set`, with its vector `v`.
    pub fn of(path: &Path, set: &[EvidenceArtifact], v: Option<StrengthVector>) -> SideSummary {
        let contracts: BTreeSet<ContractRef> = set.iter().map(|a| a.contract.clone()).collect();
        SideSummary {
            path: path.display().to_string(),
            contracts: contracts.into_iter().collect(),
            artifacts: set.len(),
            strength: v,
        }
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

/// A comparison's reason as one sentence (the `explanation` of
/// [`CompareSummary`]); untrusted parts are bounded to one line.
pub fn explain_comparison(r: &ComparisonReason) -> String {
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

fn rate_text(r: &ClassRate) -> String {
    r.rate
        .map_or_else(|| "null".to_string(), |x| format!("{x:.2}"))
}

/// A strength vector as three lines (one per class: caught/exercised,
/// rate, denominator), each starting with `indent`.
pub fn vector_lines(v: &StrengthVector, indent: &str) -> String {
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

/// The text summary of a `pactum strength` run: the probe set, then each
/// contract's vector, verdict, missed probes (at most [`SHOWN`]) and
/// coverage gaps, then the input warnings.
pub fn render_summary(s: &StrengthSummary) -> String {
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

/// One shortfall as a sentence (the JSON output keeps the structure).
fn shortfall_text(s: &FloorShortfall) -> String {
    use FloorShortfall as F;
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

/// The text of `pactum aggregate` over `files` artifact files: class
/// rates against floors, then the missed probes (at most [`SHOWN`]).
pub fn render_aggregate(a: &Aggregate, files: usize) -> String {
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
            if matches!(s, FloorShortfall::BelowFloor { .. }) {
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

/// Why `pactum aggregate` refused `files` (the artifact files in the order
/// read): the reasons (at most [`SHOWN`]), then which file each artifact
/// position they name (`#12`) is. Without an `error: ` prefix; ends with a
/// newline.
pub fn render_refusal(refusal: &AggregateRefusal, files: &[PathBuf]) -> String {
    let mut msg = format!(
        "refused to aggregate {} artifact(s): the set is not one consistent measurement\n",
        files.len()
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
    let l = legend(&shown, files);
    if !l.is_empty() {
        msg.push_str("where\n");
        msg.push_str(&l);
    }
    msg
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

/// The text of `pactum compare`: the answer and why, each side's vector,
/// and the policy.
pub fn render_compare(s: &CompareSummary) -> String {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pactum_core::policy::Policy;

    fn contract(id: &str) -> ContractSummary {
        ContractSummary {
            id: id.into(),
            digest: "sha256:c0ffee".into(),
            path: format!("contracts/{id}.yaml"),
        }
    }

    fn missed(n: usize) -> Missed {
        Missed {
            probe_id: format!("t.jsonl:{n}/defect/pay/inject\u{1b}[31m"),
            class: ProbeClass::Defect,
            severity: Severity::Critical,
            targets: Some("pay".into()),
            mutation: "inject the call send_money()\nat the end".into(),
            why: "missed: clause pay held (satisfied)".into(),
        }
    }

    /// A small summary: one skipped trace, one unbuildable probe, a
    /// warning, and one contract with more missed probes than are shown.
    fn summary() -> StrengthSummary {
        let mut c = ContractStrength::of(contract("tool"), Path::new("out/tool"), &[]);
        c.verdict = Ladder::Fail;
        c.basis = vec![
            BasisCount {
                rung: Ladder::Pass,
                reason: "caught".into(),
                count: 3,
            },
            BasisCount {
                rung: Ladder::Fail,
                reason: "missed-probe".into(),
                count: SHOWN as u64 + 2,
            },
        ];
        c.missed = (1..=SHOWN + 2).map(missed).collect();
        StrengthSummary {
            version: SUMMARY_VERSION,
            command: "strength",
            probes_from: contract("tool"),
            policy: PolicyRecord::of(&Policy::default()),
            trials: 3,
            scoring_version: "sha256:5c0e".into(),
            comparability_key: "sha256:4e7".into(),
            clean_traces: 2,
            skipped_traces: vec![SkippedTrace {
                trace_id: "t.jsonl:3".into(),
                contract: "tool".into(),
                selected: true,
                status: TestStatus::Fail,
                summary: "clause pay violated".into(),
            }],
            probes: [(ProbeClass::Defect, 14), (ProbeClass::Canary, 2)].into(),
            authored_probes: 0,
            skipped_probes: vec![SkippedProbe {
                trace_id: "t.jsonl:1".into(),
                class: ProbeClass::Gameability,
                targets: None,
                kind: "claim-success".into(),
                reason: "the trace has no final response".into(),
            }],
            input_errors: 0,
            warnings: vec![Warning {
                code: "repeated-trace-id".into(),
                message: "t.jsonl: id `a` twice".into(),
            }],
            verdict: Ladder::Fail,
            contracts: vec![c],
        }
    }

    #[test]
    fn the_strength_summary_text() {
        let text = render_summary(&summary());
        assert!(!text.contains('\u{1b}'), "escapes reach the terminal");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn missed_probes_beyond_the_bound_are_counted_not_dropped() {
        let text = render_summary(&summary());
        assert_eq!(
            text.matches("[defect critical, targets pay]").count(),
            SHOWN
        );
        assert!(
            text.contains("    and 2 more (--json lists them all)\n"),
            "{text}"
        );
    }

    #[test]
    fn an_empty_artifact_set_passes_nothing_silently() {
        // No artifact: a zero vector with null rates, no missed probe, and
        // the verdict is the ladder's floor (the pipeline refuses an empty
        // probe set before it gets here).
        let c = ContractStrength::of(contract("x"), Path::new("o"), &[]);
        assert!(c.missed.is_empty() && c.basis.is_empty());
        for class in StrengthClass::ALL {
            assert_eq!(c.strength.get(class).exercised, 0);
            assert_eq!(c.strength.get(class).rate, None);
        }
        assert!(vector_lines(&c.strength, "").contains("rate null"));
    }

    #[test]
    fn every_ladder_reason_has_a_name() {
        let named = [
            (
                LadderReason::TooFewTrials {
                    completed: 1,
                    minimum: 3,
                },
                "too-few-trials",
            ),
            (
                LadderReason::BrokenMeasurement {
                    probe_id: "p".into(),
                    detail: "d".into(),
                },
                "broken-measurement",
            ),
            (
                LadderReason::ProbeUnexercised {
                    probe_id: "p".into(),
                    completed: 0,
                },
                "probe-unexercised",
            ),
        ];
        for (r, name) in named {
            assert_eq!(reason_name(&r), name);
        }
    }

    #[test]
    fn the_compare_text() {
        let s = CompareSummary {
            version: SUMMARY_VERSION,
            command: "compare",
            dominance: Dominance::Incomparable,
            explanation: explain_comparison(&ComparisonReason::NoCommonClass),
            reason: ComparisonReason::NoCommonClass,
            a: SideSummary::of(Path::new("a"), &[], None),
            b: SideSummary::of(Path::new("b"), &[], None),
            policy: PolicyRecord::of(&Policy::default()),
        };
        insta::assert_snapshot!(render_compare(&s));
    }

    #[test]
    fn the_legend_names_only_positions_the_core_wrote() {
        let files: Vec<PathBuf> = (0..4)
            .map(|i| PathBuf::from(format!("f{i}.json")))
            .collect();
        // ` #2 (id)` is a position; `remove-text#3` inside an id is not,
        // nor is a position past the files read.
        let text = "  - artifact #2 (a/remove-text#3) and #1 (b) and #9 (c)\n";
        assert_eq!(legend(text, &files), "  #1 = f1.json\n  #2 = f2.json\n");
        assert_eq!(legend("no position here", &files), "");
    }
}
