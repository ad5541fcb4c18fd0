//! What an output shows (the seventh review): a judge's quote, a quoted
//! text and a lower bound are met only by text a reader is shown as
//! written. Each wrong green here must now be violated, left to the judge
//! (`not_evaluable` without one), or undetermined — never satisfied.

use pactum_core::{NotEvaluableReason, Policy, Verdict};
use pactum_openprose::grade::{grade_run, no_judge, RunGrade};
use pactum_openprose::import_run;

mod common;
use common::*;

/// A single service `svc` whose Ensures is `- `summary`: {clause}`, with
/// `binding` as its output.
fn run_with(clause: &str, binding: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        &format!(
            "---\nname: svc\nkind: service\n---\n## Requires\n\n- topic: the subject\n\n## Ensures\n\n- `summary`: {clause}\n"
        ),
    );
    write(
        d.path(),
        "bindings/caller/topic.md",
        "# topic\nbinding: input\nsource: caller\n---\nSolid-state batteries\n",
    );
    write(d.path(), "vm.log.md", OK_LOG);
    write(d.path(), "bindings/svc/summary.md", binding);
    d
}

fn verdict(g: &RunGrade, what: &str) -> Verdict {
    let v: Vec<Verdict> = g
        .contracts
        .iter()
        .flat_map(|c| c.clauses.iter().map(|r| r.verdict))
        .collect();
    assert_eq!(v.len(), 1, "{what}: {g:#?}");
    v[0]
}

/// One `summary` clause over one binding, without a judge.
fn one(clause: &str, binding: &str) -> Verdict {
    let d = run_with(clause, binding);
    let run = import_run(d.path()).expect("imports");
    let policy = Policy::default();
    let mut judge = no_judge(policy);
    let g = grade_run(&run, &policy, &mut judge);
    verdict(&g, clause)
}

fn never_green(clause: &str, binding: &str) {
    assert_ne!(
        one(clause, binding),
        Verdict::Satisfied,
        "{clause:?} over {binding:?} came out satisfied"
    );
}

/// A judge-only clause over `binding`, the judge answering satisfied with
/// `quote` as its only evidence.
fn judged(binding: &str, quote: &str) -> (Verdict, Option<NotEvaluableReason>) {
    let d = run_with("a persuasive summary", binding);
    judged_run(d.path(), quote)
}

const Q: &str = "Batteries are the future of storage.";

/// A judge's quote backs a verdict only where the output shows it: not
/// reversed by a bidi control, not a link's destination or label, not an
/// unreferenced footnote, not a duplicate definition's title, not math
/// that can hide it.
#[test]
fn a_judge_quote_of_unshown_text_backs_nothing() {
    for (out, quote) in [
        (format!("Intro \u{202e}{Q}\u{202c} words.\n"), Q),
        (
            "Intro [a](https://batteries.org/future).\n".to_string(),
            "https://batteries.org/future",
        ),
        (format!("Short intro.\n\n[^zz]: {Q}\n"), Q),
        (
            format!("Intro [a][x].\n\n[x]: /u \"t\"\n[X]: /v\n\"{Q}\"\n"),
            Q,
        ),
        (format!("Intro words.\n\n$$\\phantom{{{Q}}}$$\n"), Q),
        (format!("Intro [a][{Q}].\n\n[{Q}]: /u\n"), Q),
    ] {
        let (v, reason) = judged(&out, quote);
        assert_eq!(v, Verdict::NotEvaluable, "{out:?}");
        assert_eq!(
            reason,
            Some(NotEvaluableReason::FabricatedEvidence),
            "{out:?}"
        );
    }
    // Shown, it stands; a referenced footnote is shown.
    for out in [
        format!("Intro. {Q}\n"),
        format!("Intro.[^a]\n\n[^a]: {Q}\n"),
        format!("Intro [a](https://b.org/x). {Q}\n"),
    ] {
        assert_eq!(judged(&out, Q).0, Verdict::Satisfied, "{out:?}");
    }
}

/// An unreferenced footnote definition is not rendered (GitHub drops it):
/// it meets no lower bound, quote or source count; it still counts
/// against an upper bound.
#[test]
fn an_unreferenced_footnote_meets_no_positive_measure() {
    never_green(
        "saying \"degrade quickly\"",
        "Short intro.\n\n[^zz]: Lithium cells degrade quickly under heat stress.\n",
    );
    never_green(
        "at least 10 words",
        "Short intro.\n\n[^zz]: one two three four five six seven eight nine ten eleven twelve.\n",
    );
    never_green(
        "at least 3 items",
        "Short intro.\n\n[^zz]: Notes\n\n    - alpha\n    - beta\n    - gamma\n",
    );
    never_green(
        "at least 3 sources",
        "Short intro.\n\n[^zz]: [a](https://a.org/1) [b](https://b.org/2) [c](https://c.org/3)\n",
    );
    never_green(
        "at most 3 words",
        "Short intro.\n\n[^zz]: one two three four five six seven eight.\n",
    );
    // Referenced, it is shown.
    assert_eq!(
        one(
            "saying \"degrade quickly\"",
            "Short intro.[^zz]\n\n[^zz]: Lithium cells degrade quickly under heat stress.\n",
        ),
        kept("saying \"degrade quickly\"")
    );
}

/// A second definition of a defined label is ignored whole, its
/// next-line title too.
#[test]
fn a_duplicate_definitions_title_says_nothing() {
    never_green(
        "saying \"degrade quickly\"",
        "Intro [a][x].\n\n[x]: /u \"t\"\n[X]: /v\n\"degrade quickly\"\n",
    );
}

/// Struck-through text is shown as withdrawn: no evidence for a quote or
/// a lower bound; a negated quote still sees it.
#[test]
fn struck_text_meets_no_positive_measure() {
    for out in [
        "Status: ~~approved~~ rejected.\n",
        "Status: <del>approved</del> rejected.\n",
        "Status: <s>approved</s> rejected.\n",
        "Status: <strike>approved</strike> rejected.\n",
    ] {
        never_green("saying \"approved\"", out);
        never_green("not saying \"approved\"", out);
    }
    never_green(
        "at least 3 items",
        "- ~~alpha~~\n- ~~beta~~\n- ~~gamma~~\n- delta\n",
    );
    // An upper bound still counts struck words.
    never_green("at most 3 words", "One two ~~three four five six~~.\n");
    assert_eq!(
        one("saying \"rejected\"", "Status: ~~approved~~ rejected.\n"),
        kept("saying \"rejected\"")
    );
}

/// A quoted word or number is not part of a longer one joined by `-`,
/// `.` or `,`; a sentence's own full stop or comma still ends it.
#[test]
fn a_quoted_word_is_not_part_of_a_joined_word() {
    for (q, out) in [
        ("safe", "It is un-safe.\n"),
        ("100", "Price 100.5 dollars.\n"),
        ("100", "Price 1,100 dollars.\n"),
        ("zero", "The risk is non-zero.\n"),
        ("safe", "It is safe-ish.\n"),
    ] {
        never_green(&format!("saying \"{q}\""), out);
    }
    for (q, out) in [
        ("safe", "It is safe.\n"),
        ("safe", "It is safe, mostly.\n"),
        ("100", "Price: 100.\n"),
        ("safe", "Safe - or so they say.\n"),
    ] {
        let clause = format!("saying \"{q}\"");
        assert_eq!(one(&clause, out), kept(&clause), "{q} over {out:?}");
    }
    // Alone, with its full stop, it is said.
    for (q, out) in [("is safe", "Is safe.\n"), ("is safe", "*is safe*\n")] {
        assert_eq!(
            one(&format!("saying \"{q}\""), out),
            Verdict::Satisfied,
            "{q} over {out:?}"
        );
    }
}
