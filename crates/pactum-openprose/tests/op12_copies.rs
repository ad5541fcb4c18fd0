//! A copy of the service's input is no output of its own however its
//! letters are written: look-alike, fullwidth or mathematical letters, or
//! an accent added, make no new words.

use pactum_core::{NotEvaluableReason, Policy, Verdict};
use pactum_openprose::grade::grade_run;
use pactum_openprose::import_run;

mod common;
use common::*;

const INPUT: &str = "Solid-state batteries promise higher energy density and better safety for electric vehicles and home storage";

/// The caller's input `topic`, and `out` holding `out`.
fn copied_run(clause: &str, out: &str) -> tempfile::TempDir {
    let d = run_with(
        &format!("## Ensures\n\n- `out`: {clause}\n"),
        &[("bindings/svc/out.md", out)],
    );
    write(
        d.path(),
        "bindings/caller/topic.md",
        &format!("# topic\nbinding: input\nsource: caller\n---\n{INPUT}\n"),
    );
    d
}

fn laundered() -> Vec<String> {
    let fullwidth: String = INPUT
        .chars()
        .map(|c| match c {
            'a'..='z' => char::from_u32(c as u32 - 'a' as u32 + 0xFF41).unwrap_or(c),
            _ => c,
        })
        .collect();
    vec![
        INPUT.replace('i', "\u{0456}"),
        fullwidth,
        INPUT.replacen("energy", "e\u{0301}nergy", 1),
        INPUT.replace('o', "\u{03BF}"),
    ]
}

#[test]
fn a_copy_in_look_alike_letters_is_no_output_of_its_own() {
    // The control: the copy as written.
    let d = copied_run("at most 50 words", INPUT);
    assert_eq!(by_text(&grade_dir(d.path()))[0].1, Verdict::Violated);
    for out in laundered() {
        let d = copied_run("at most 50 words", &out);
        let g = grade_dir(d.path());
        assert_eq!(by_text(&g)[0].1, Verdict::Violated, "{out}: {g:#?}");
    }
}

#[test]
fn a_judge_quote_of_a_copy_in_look_alike_letters_backs_nothing() {
    for out in laundered() {
        let d = copied_run("written in English", &format!("A note.\n\n{out}\n"));
        let run = import_run(d.path()).expect("imports");
        let policy = Policy::default();
        let mut judge = satisfied_quoting(&policy, 1, &out);
        let g = grade_run(&run, &policy, &mut judge);
        let c = &g.contracts[0].clauses[0];
        assert_eq!(c.verdict, Verdict::NotEvaluable, "{out}: {c:#?}");
        assert_eq!(
            c.reason,
            Some(NotEvaluableReason::FabricatedEvidence),
            "{out}"
        );
    }
}
