//! Trials and scoring (SPEC §3.8): each probe graded in N trials, each
//! trial classified by the core ([`classify_trial`]), the probe set scored
//! into evidence artifacts ([`score_probes`]), and the six declared inputs
//! of the scoring version ([`ScoringInputs`]) computed from what was used.

use pactum_core::contract::CONTRACT_SCHEMA_VERSION;
use pactum_core::digest::{canonical_json, digest_of, sha256_hex};
use pactum_core::policy::Policy;
use pactum_core::strength::{
    classify_trial, score_probes, EvidenceArtifact, ScoringInputs, ScoringMode, StrengthError,
    TrialObservation, TrialOutcome,
};
use pactum_core::trace::Trace;
use pactum_eval::{grade_trace, CompiledContract, Judgments};
use serde::Serialize;
use sha2::{Digest as _, Sha256};

use crate::generate::{Origin, ProbeCase};

/// The version of the probe generator: part of the fixture digest, so a
/// change in how probes are planted changes the scoring version.
pub const GENERATOR_VERSION: u32 = 1;

/// What a trial observation says when the contract does not select the
/// probe's trace.
pub const NOT_SELECTED: &str = "the contract does not select the probe's trace";

/// Grades `case` with `contract` in `trials` trials (indices `0..trials`)
/// and classifies each (SPEC §3.8). Deterministic checks give the same
/// state every trial; a judged clause is graded by `judge` each time (with
/// [`pactum_eval::NoJudge`] it is `not_evaluable` `no-judge`, so a probe
/// decided by it abstains).
pub fn run_trials(
    contract: &CompiledContract,
    case: &ProbeCase,
    trials: u32,
    policy: &Policy,
    judge: &dyn Judgments,
) -> Vec<TrialOutcome> {
    (0..trials)
        .map(|i| {
            let graded = grade_trace(std::slice::from_ref(contract), &case.trace, policy, judge);
            let observation = match graded.contracts.first() {
                Some(result) => TrialObservation::Graded(result),
                None => TrialObservation::NotApplicable(NOT_SELECTED),
            };
            classify_trial(&case.probe, i, observation, policy)
        })
        .collect()
}

/// Scores graded probes into one artifact per probe, sorted by probe id
/// (a thin wrapper over [`score_probes`] with the contract's id and
/// digest). `graded` is the whole probe set: every artifact records its
/// size and ids, and an aggregate or comparison of fewer is refused.
///
/// # Errors
/// [`StrengthError`] for a repeated probe id, or anything
/// [`EvidenceArtifact::build`] refuses.
pub fn score(
    contract: &CompiledContract,
    policy: &Policy,
    scoring: &ScoringInputs,
    graded: Vec<(&ProbeCase, Vec<TrialOutcome>)>,
) -> Result<Vec<EvidenceArtifact>, StrengthError> {
    score_probes(
        contract.contract(),
        contract.digest(),
        policy,
        scoring,
        graded
            .into_iter()
            .map(|(c, o)| (c.probe.clone(), o))
            .collect(),
    )
}

/// A trace without where it was read from: what digests cover, so the
/// same content read from another path digests the same.
fn sourceless(t: &Trace) -> Trace {
    Trace {
        source: None,
        ..t.clone()
    }
}

/// `sha256:` of one trace's canonical JSON, without its `source`.
pub fn trace_digest(t: &Trace) -> String {
    digest_of(&sourceless(t))
}

/// The corpus digest: `sha256:` over the canonical JSON of each clean
/// trace (without its `source`), in order, each followed by a newline.
pub fn corpus_digest(clean: &[Trace]) -> String {
    let mut h = Sha256::new();
    for t in clean {
        h.update(canonical_json(&sourceless(t)).as_bytes());
        h.update(b"\n");
    }
    format!("sha256:{}", hex::encode(h.finalize()))
}

/// The fixture digest: `sha256:` of the canonical JSON of
/// `{"generator_version", "probes": [{probe, origin}…]}`, probes sorted by
/// id. With the corpus digest it pins every probe trace: generated ones are
/// their clean trace plus their edits, authored ones carry their trace's
/// digest.
pub fn fixture_digest(cases: &[ProbeCase]) -> String {
    #[derive(Serialize)]
    struct Entry<'a> {
        probe: &'a pactum_core::strength::Probe,
        origin: &'a Origin,
    }
    #[derive(Serialize)]
    struct Fixture<'a> {
        generator_version: u32,
        probes: Vec<Entry<'a>>,
    }
    let mut probes: Vec<Entry<'_>> = cases
        .iter()
        .map(|c| Entry {
            probe: &c.probe,
            origin: &c.origin,
        })
        .collect();
    probes.sort_by(|a, b| a.probe.id.cmp(&b.probe.id));
    digest_of(&Fixture {
        generator_version: GENERATOR_VERSION,
        probes,
    })
}

/// The evaluator configuration digest: `sha256:` of the canonical JSON of
/// `{"pactum_version", "refusal_detector", "judge"}`. The refusal
/// detector ships with pactum-eval and has no version of its own, so it is
/// named by the pactum version, its decision thresholds and the SHA-256 of
/// its source text (`pactum_eval::refusal::SOURCES`: a changed cue list or
/// rule changes the digest); `judge` is the judge configuration, or
/// `"none"`.
pub fn evaluator_configuration_digest(judge: Option<&str>) -> String {
    let t = pactum_eval::refusal::Thresholds::DEFAULT;
    digest_of(&serde_json::json!({
        "pactum_version": env!("CARGO_PKG_VERSION"),
        "refusal_detector": {
            "crate": "pactum-eval",
            "version": env!("CARGO_PKG_VERSION"),
            "refuse_at": t.refuse_at,
            "comply_at": t.comply_at,
            "quiet_words": t.quiet_words,
            "loud_words": t.loud_words,
            "content_words": t.content_words,
            "dense_words": t.dense_words,
            "source": digest_of(&pactum_eval::refusal::SOURCES),
        },
        "judge": judge.unwrap_or("none"),
    }))
}

/// The six declared inputs of a replay run: contract schema version, the
/// corpus digest of `clean`, the fixture digest of `cases`, the evaluator
/// configuration digest, `policy`'s digest and mode `replay`.
pub fn scoring_inputs(
    clean: &[Trace],
    cases: &[ProbeCase],
    policy: &Policy,
    judge: Option<&str>,
) -> ScoringInputs {
    ScoringInputs {
        contract_schema_version: CONTRACT_SCHEMA_VERSION,
        corpus_digest: corpus_digest(clean),
        fixture_digest: fixture_digest(cases),
        evaluator_configuration_digest: evaluator_configuration_digest(judge),
        policy_digest: policy.digest(),
        mode: ScoringMode::Replay,
    }
}

/// The file name of a probe's artifact: the probe id made safe for every
/// file system, then `.json`. ASCII letters, digits, `.`, `_` and `-` are
/// kept (a leading `.` is escaped); `/` becomes `~`; every other byte is
/// `%XX`. The mapping is one-to-one, so two probes never share a file. A
/// name that would exceed 200 bytes keeps its first 160 and ends with 16
/// hex digits of the id's SHA-256.
pub fn artifact_file_name(probe_id: &str) -> String {
    let mut s = String::with_capacity(probe_id.len() + 5);
    for (i, b) in probe_id.bytes().enumerate() {
        match b {
            b'.' if i == 0 => s.push_str("%2E"),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-' => s.push(char::from(b)),
            b'/' => s.push('~'),
            other => s.push_str(&format!("%{other:02X}")),
        }
    }
    if s.len() > 200 {
        let hash = sha256_hex(probe_id.as_bytes());
        let tail = hash.trim_start_matches("sha256:").get(..16).unwrap_or("");
        let mut cut = 160;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s = format!("{}-{tail}", &s[..cut]);
    }
    s.push_str(".json");
    s
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_distinct() {
        let ids = [
            "t.jsonl:12/defect/pay/inject-tool-call:send_money",
            "t.jsonl:12~defect~pay~inject-tool-call:send_money",
            "t.jsonl%3A12/defect",
            "../escape",
            ".hidden",
            "a b/ç",
        ];
        let names: Vec<String> = ids.iter().map(|i| artifact_file_name(i)).collect();
        for n in &names {
            assert!(n.ends_with(".json"));
            assert!(!n.starts_with('.'), "{n}");
            assert!(n
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-~%".contains(&b)));
        }
        let unique: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert_eq!(
            names[0],
            "t.jsonl%3A12~defect~pay~inject-tool-call%3Asend_money.json"
        );
        let long = "x/".repeat(300);
        let n = artifact_file_name(&long);
        assert!(n.len() <= 200, "{}", n.len());
        assert_ne!(n, artifact_file_name(&"x/".repeat(301)));
    }
}
