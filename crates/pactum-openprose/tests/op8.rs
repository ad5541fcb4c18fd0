//! Wrong greens the eighth hostile review found: a commitment read as a
//! pointer note, and a judge's quote another output shows.

use pactum_core::{NotEvaluableReason, Policy, Verdict};
use pactum_openprose::grade::grade_run;
use pactum_openprose::import_run;

mod common;
use common::*;

/// A sentence points elsewhere only when it names nothing but a closed
/// list of places (the README, the documentation, below): anything else
/// it says is a clause, graded and reported.
#[test]
fn only_a_pointer_to_a_known_place_is_a_note() {
    for sentence in [
        "Refer to the customer by first name.",
        "See the style guide, everything in French.",
        "See the style guide — everything in French.",
        "See the style guide (everything in French).",
        "See the output is in French.",
        "Details in French.",
        "See that every claim is sourced.",
        // Following a style guide is a commitment of its own.
        "See the style guide.",
    ] {
        let d = run_root(&root(&format!(
            "## Ensures\n\n- `out`: a list\n\n{sentence}\n"
        )));
        let g = grade_dir(d.path());
        let texts = by_text(&g);
        assert!(
            texts
                .iter()
                .any(|(t, _)| t.contains(sentence.trim_end_matches('.'))),
            "{sentence:?} was dropped: {texts:?}"
        );
    }
    for note in [
        "See the README for details.",
        "See below.",
        "For more details, see the documentation.",
        "The outputs are described below.",
    ] {
        let d = run_root(&root(&format!("## Ensures\n\n- `out`: a list\n\n{note}\n")));
        let texts = by_text(&grade_dir(d.path()));
        assert_eq!(texts.len(), 1, "{note:?} read as a clause: {texts:?}");
    }
}

/// Two outputs, `a` and `b`: the judge answers satisfied for `a`'s
/// judged clause quoting `quote`.
fn judged_two(a: &str, b: &str, quote: &str) -> (Verdict, Option<NotEvaluableReason>) {
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        "---\nname: svc\nkind: service\n---\n## Requires\n\n- topic: the subject\n\n## Ensures\n\n- `a`: a persuasive summary\n- `b`: a list\n",
    );
    write(
        d.path(),
        "bindings/caller/topic.md",
        "# topic\nbinding: input\nsource: caller\n---\nSolid-state batteries\n",
    );
    write(d.path(), "vm.log.md", OK_LOG);
    write(d.path(), "bindings/svc/a.md", a);
    write(d.path(), "bindings/svc/b.md", b);
    let run = import_run(d.path()).expect("imports");
    let policy = Policy::default();
    let mut judge = satisfied_quoting(&policy, 1, quote);
    let g = grade_run(&run, &policy, &mut judge);
    let c = g.contracts[0]
        .clauses
        .iter()
        .find(|c| c.text.contains("persuasive"))
        .expect("the judged clause");
    (c.verdict, c.reason)
}

const Q: &str = "Batteries are the future of storage.";

/// A quote the clause's own output hides backs nothing, though another
/// output of the contract shows the same words.
#[test]
fn a_quote_another_output_shows_backs_nothing() {
    let b = format!("- {Q}\n");
    for a in [
        format!("Intro.\n\n<!-- {Q} -->\n"),
        format!("Intro.\n\n[^zz]: {Q}\n"),
        format!("Intro ~~{Q}~~ words.\n"),
        format!("Intro [a](/u \"{Q}\").\n"),
    ] {
        let (v, why) = judged_two(&a, &b, Q);
        assert_ne!(v, Verdict::Satisfied, "{a:?}");
        assert_eq!(why, Some(NotEvaluableReason::FabricatedEvidence), "{a:?}");
    }
    // Shown by the clause's own output: the quote stands.
    let (v, _) = judged_two(&format!("Intro. {Q}\n"), &b, Q);
    assert_eq!(v, Verdict::Satisfied);
}
