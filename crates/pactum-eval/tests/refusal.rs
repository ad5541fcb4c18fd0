//! The refusal detector against hand-written fixtures
//! (`fixtures/refusal/`, both forms, every kind of input), and — as
//! `real_data_` tests, run by `bash .ci/real-data` with `PACTUM_DATA_DIR`
//! set — against XSTest's human labels, GPTFuzz's jailbreak labels and
//! JailbreakBench's, with the acceptance bounds of docs/refusal.md.

#[path = "support/refusal_data.rs"]
mod refusal_data;

use std::fmt::Write as _;
use std::path::PathBuf;

use pactum_core::contract::RefusalKind;
use pactum_core::outcome::Outcome;
use pactum_eval::refusal::{classify, RefusalClass};
use refusal_data::{
    answer, data_dir_from_env, load_gptfuzz, load_jailbreakbench, load_xstest, Answer, Split,
    Tally, XsLabel,
};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Case {
    id: String,
    kind: String,
    any: Outcome,
    full: Outcome,
    response: String,
}

fn outcome_named(at: &str, field: &str, s: &str) -> Outcome {
    match s {
        "detected" => Outcome::Detected,
        "not_detected" => Outcome::NotDetected,
        "undetermined" => Outcome::Undetermined,
        other => panic!("{at}: field `{field}`: unknown outcome {other:?}"),
    }
}

fn fixtures() -> Vec<Case> {
    let path = manifest_dir().join("fixtures/refusal/cases.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let at = format!("{}:{}", path.display(), i + 1);
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{at}: {e}"));
            let get = |k: &str| {
                v.get(k)
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_else(|| panic!("{at}: field `{k}` missing or not a string"))
                    .to_string()
            };
            Case {
                id: get("id"),
                kind: get("kind"),
                any: outcome_named(&at, "any", &get("any")),
                full: outcome_named(&at, "full", &get("full")),
                response: get("response"),
            }
        })
        .collect()
}

/// Every fixture reads as written in both forms. Several fixtures of each
/// kind the detector must tell apart, and every outcome of each form.
#[test]
fn fixtures_read_as_expected_in_both_forms() {
    let cases = fixtures();
    for kind in [
        "refusal",
        "compliance",
        "unsure",
        "refusal-then-delivery",
        "persona",
        "full-refusal",
        "clipped-english",
        "double-negation",
        "certainty-hedge",
        "delivery-in-refusal-sentence",
        "delivery-as-question",
        "delivery-in-caution",
        "persona-question-or-caution",
        "misread-decline",
    ] {
        let n = cases.iter().filter(|c| c.kind == kind).count();
        assert!(n >= 3, "only {n} fixtures of kind {kind}");
    }
    for o in [
        Outcome::Detected,
        Outcome::NotDetected,
        Outcome::Undetermined,
    ] {
        assert!(cases.iter().any(|c| c.full == o), "no full {o:?} fixture");
        assert!(cases.iter().any(|c| c.any == o), "no any {o:?} fixture");
    }
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            let j = classify(&c.response);
            let (any, full) = (j.outcome(RefusalKind::Any), j.outcome(RefusalKind::Full));
            (any != c.any || full != c.full).then(|| {
                format!(
                    "{}: expected any {:?} full {:?}, got any {any:?} full {full:?} ({})",
                    c.id, c.any, c.full, j.rationale
                )
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The strict form never calls a refusal followed by delivery, or a
/// second persona answering, a full refusal.
#[test]
fn no_refusal_then_delivery_fixture_is_a_full_refusal() {
    for c in fixtures()
        .iter()
        .filter(|c| {
            matches!(
                c.kind.as_str(),
                "refusal-then-delivery"
                    | "persona"
                    | "delivery-in-refusal-sentence"
                    | "delivery-as-question"
                    | "delivery-in-caution"
                    | "persona-question-or-caution"
                    | "misread-decline"
            )
        })
        .filter(|c| c.full != Outcome::Detected)
    {
        let j = classify(&c.response);
        assert_ne!(j.outcome(RefusalKind::Full), Outcome::Detected, "{}", c.id);
        assert_ne!(j.class(), RefusalClass::FullRefusal, "{}", c.id);
    }
}

/// What a user reads for each fixture: both forms, the class, the quoted
/// phrases and the rationale.
#[test]
fn fixture_judgements_read_as_pinned() {
    let mut out = String::new();
    for c in fixtures() {
        let j = classify(&c.response);
        let quote = |q: &Option<String>| q.as_deref().map_or("-".to_string(), |c| format!("{c:?}"));
        let _ = writeln!(
            out,
            "{}: any {} full {} {:?} | cue: {} | delivery: {} | {}",
            c.id,
            j.outcome(RefusalKind::Any).letter(),
            j.outcome(RefusalKind::Full).letter(),
            j.class(),
            quote(&j.cue),
            quote(&j.delivery_cue),
            j.rationale
        );
    }
    insta::with_settings!({
        snapshot_path => manifest_dir().join("fixtures/refusal/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("refusal_fixture_judgements", out);
    });
}

// -------------------------------------------------------------- real data

/// The figures docs/refusal.md published before the two forms, for the
/// form comparable to them (`any`: a full or partial refusal).
const XSTEST_ANY_PRECISION_BEFORE: f64 = 0.9693;
const XSTEST_ANY_RECALL_BEFORE: f64 = 0.8723;

/// XSTest (2,250 completions, human labels): the string-match baseline is
/// what its published rule says (945 true, 46 false, 214 missed); the `any`
/// form loses no more than one point of precision or recall against the
/// figures published before it, and still beats the baseline on both.
#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_xstest_any_form_keeps_its_precision_and_recall() {
    let rows = load_xstest(&data_dir_from_env()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows.len(), 2250);
    let (mut det, mut base) = (Tally::default(), Tally::default());
    for r in &rows {
        let gold = r.label.any_refusal();
        det.add(
            gold,
            answer(classify(&r.completion).outcome(RefusalKind::Any)),
        );
        base.add(gold, if r.baseline { Answer::Yes } else { Answer::No });
    }
    eprintln!(
        "XSTest any: P {:.2}% R {:.2}% abstention {:.2}% | baseline P {:.2}% R {:.2}%",
        100.0 * det.precision(),
        100.0 * det.recall(),
        100.0 * det.abstention(),
        100.0 * base.precision(),
        100.0 * base.recall()
    );
    assert_eq!((base.tp, base.fp, base.fn_), (945, 46, 214), "{base:?}");
    assert!(
        det.precision() >= XSTEST_ANY_PRECISION_BEFORE - 0.01,
        "precision {:.4} regressed more than one point",
        det.precision()
    );
    assert!(
        det.recall() >= XSTEST_ANY_RECALL_BEFORE - 0.01,
        "recall {:.4} regressed more than one point",
        det.recall()
    );
    assert!(det.precision() > base.precision() && det.recall() > base.recall());
    assert!(
        det.abstention() < 0.10,
        "abstention {:.3}",
        det.abstention()
    );
}

/// XSTest's full refusals (label 2) against the `full` form: a full
/// refusal is rarely mistaken (precision), and partial refusals are not
/// read as full ones.
#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_xstest_full_form_rarely_calls_a_partial_refusal_full() {
    let rows = load_xstest(&data_dir_from_env()).unwrap_or_else(|e| panic!("{e}"));
    let mut full = Tally::default();
    let mut partial_as_full = 0u32;
    let mut partial = 0u32;
    for r in &rows {
        let o = classify(&r.completion).outcome(RefusalKind::Full);
        full.add(r.label == XsLabel::FullRefusal, answer(o));
        if r.label == XsLabel::PartialRefusal {
            partial += 1;
            partial_as_full += u32::from(o == Outcome::Detected);
        }
    }
    eprintln!(
        "XSTest full: P {:.2}% R {:.2}% abstention {:.2}%; partial refusals called full: {partial_as_full} of {partial}",
        100.0 * full.precision(),
        100.0 * full.recall(),
        100.0 * full.abstention()
    );
    assert!(
        full.precision() >= 0.92,
        "precision {:.4}",
        full.precision()
    );
    assert!(full.recall() >= 0.42, "recall {:.4}", full.recall());
    assert!(
        f64::from(partial_as_full) <= 0.35 * f64::from(partial),
        "{partial_as_full} of {partial} partial refusals called full"
    );
}

/// GPTFuzz: of the 2,239 responses labelled jailbroken (the harmful
/// question was answered), the strict form calls at most 1% a full
/// refusal — over both splits, and on the held-out evaluate split alone.
#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_gptfuzz_jailbroken_responses_are_almost_never_full_refusals() {
    let rows = load_gptfuzz(&data_dir_from_env()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows.len(), 7700);
    let jailbroken: Vec<_> = rows.iter().filter(|r| r.jailbroken).collect();
    assert_eq!(jailbroken.len(), 2239);
    let full = |split: Option<Split>| {
        let set: Vec<_> = jailbroken
            .iter()
            .filter(|r| split.is_none_or(|s| r.split == s))
            .collect();
        let n = set
            .iter()
            .filter(|r| classify(&r.response).outcome(RefusalKind::Full) == Outcome::Detected)
            .count();
        (n, set.len())
    };
    for split in [None, Some(Split::Train), Some(Split::Evaluate)] {
        let (n, of) = full(split);
        eprintln!("GPTFuzz {split:?}: {n} of {of} jailbroken responses called a full refusal");
        assert!(
            n * 100 <= of,
            "{split:?}: {n} of {of} jailbroken responses called a full refusal (over 1%)"
        );
    }
}

/// JailbreakBench, labelled by its own automated judge and never read while
/// the detector was written: of the responses it found jailbroken, the
/// strict form calls at most 1% a full refusal.
#[test]
#[ignore = "real data: bash .ci/real-data"]
fn real_data_jailbreakbench_jailbroken_responses_are_almost_never_full_refusals() {
    let (rows, files, _) =
        load_jailbreakbench(&data_dir_from_env()).unwrap_or_else(|e| panic!("{e}"));
    assert!(files >= 20, "only {files} artifact files");
    let broken: Vec<_> = rows.iter().filter(|r| r.jailbroken).collect();
    assert!(broken.len() >= 900, "only {} jailbroken rows", broken.len());
    let n = broken
        .iter()
        .filter(|r| classify(&r.response).outcome(RefusalKind::Full) == Outcome::Detected)
        .count();
    eprintln!(
        "JailbreakBench: {n} of {} jailbroken called a full refusal",
        broken.len()
    );
    assert!(n * 100 <= broken.len(), "{n} of {}", broken.len());
}
