//! A required quote is said, for pactum, only by an output that is the
//! quote alone: anywhere else the words around it may deny it, suppose
//! it, label it, plan it or frame it under a key, and no closed list of
//! such words is complete, so the clause is the judge's. A forbidden word
//! split across a line by a hyphen is still written.

use pactum_core::Verdict;

mod common;
use common::*;

const SAYS: &str = "saying \"all clear\"";
const NONE_FOUND: &str = "saying \"no sources were found\"";

/// Denied, supposed or withdrawn in words no list holds.
#[test]
fn a_quote_denied_or_supposed_in_any_words_is_never_green() {
    for out in [
        "Far from all clear.",
        "Anything but all clear.",
        "The all clear was revoked.",
        "Wrongly reported as all clear.",
        "When all clear, reopen.",
        "Had it been all clear, we would reopen.",
        "Before all clear, wait.",
        "Hardly all clear.",
        "Rumours of all clear are wrong.",
    ] {
        never_green(SAYS, &format!("{out}\n"));
    }
    never_green("mentions \"Tesla\"", "Tesla is not covered here.\n");
}

/// A label's value, a task box or a table cell decides what the label
/// says.
#[test]
fn a_quote_labelled_false_or_left_unchecked_is_never_green() {
    for out in [
        "All clear: no",
        "All clear: false",
        "- All clear: ✗",
        "**All clear:** ❌",
        "All clear — no.",
        "| all clear |\n|---|\n| false |",
        "- [ ] all clear",
        "- [x] site checked\n- [ ] all clear",
        "# All clear\n\nfalse",
        "> All clear",
        "~~All clear~~",
    ] {
        never_green(SAYS, &format!("{out}\n"));
    }
    never_green(
        NONE_FOUND,
        "- [x] search ran\n- [ ] no sources were found\n",
    );
}

/// A to-do note, a hedge, a draft label, an expected value or a
/// superseded thought says nothing yet.
#[test]
fn a_quote_in_a_note_a_hedge_or_a_thought_is_never_green() {
    for out in [
        "TODO: state that no sources were found.",
        "TODO: no sources were found",
        "FIXME: no sources were found",
        "Placeholder: no sources were found",
        "Draft: no sources were found (to confirm)",
        "Expected: no sources were found. Actual: 3 sources.",
        "Maybe no sources were found.",
        "Perhaps no sources were found.",
        "Example output: no sources were found",
    ] {
        never_green(NONE_FOUND, &format!("{out}\n"));
    }
    never_green(
        SAYS,
        "Thought: it is all clear.\nAction: check sensors\nObservation: smoke detected\nFinal Answer: the site is unsafe.\n",
    );
    never_green(
        SAYS,
        "[thinking] all clear [/thinking]\n\nAlarm: the site is unsafe.\n",
    );
}

/// In JSON, the key beside a value (or another value) decides what it
/// says: the output is more than the quote, so the judge reads it.
#[test]
fn a_quote_in_json_is_the_judges() {
    const JSON: &str = "bindings/svc/summary.json";
    for body in [
        r#"{"do_not_say":"all clear"}"#,
        r#"{"forbidden_phrases":["all clear"]}"#,
        r#"{"myth":"all clear"}"#,
        r#"{"retracted":"all clear"}"#,
        r#"{"status":"all clear","valid":false}"#,
        r#"{"claim":"all clear","is_true":false}"#,
        r#"{"expected":"all clear","actual":"alarm"}"#,
        r#"{"previous_status":"all clear","status":"alarm"}"#,
        r#"["not","all clear"]"#,
        r#"{"status":"far from all clear"}"#,
        r#"{"summary":"alarm", "//":"all clear"}"#,
        r#"{"summary":"alarm", "_comment":"all clear"}"#,
        r#"{"summary":"alarm", "$comment":"all clear"}"#,
        r#"{"summary":"alarm", "internal_notes":"all clear"}"#,
    ] {
        assert_ne!(one_at(SAYS, JSON, body), Verdict::Satisfied, "{body}");
    }
    assert_ne!(
        one_at(
            "mentions \"Tesla\"",
            JSON,
            r#"{"summary":"EV makers compared.","do_not_mention":["Tesla"]}"#
        ),
        Verdict::Satisfied
    );
}

/// The degraded output of an errored service is graded by the same rule.
#[test]
fn a_degraded_note_left_to_do_or_denied_is_never_green() {
    for note in [
        "TODO: state that no sources were found.\n",
        "No sources were found: false\n",
        "- [x] searched the web\n- [ ] no sources were found\n",
    ] {
        let d = degraded("# Error: search-failed\n");
        write(d.path(), "bindings/svc/out.md", note);
        let g = grade_dir(d.path());
        for (text, v) in by_text(&g) {
            if text.contains("says") {
                assert_ne!(v, Verdict::Satisfied, "{note:?}: {g:#?}");
            }
        }
    }
}

/// The quote alone is said; in any sentence it is found in, it is the
/// judge's, never violated.
#[test]
fn the_quote_alone_is_said() {
    for out in ["All clear.", "all clear", "**All clear!**", " All clear \n"] {
        assert_eq!(one(SAYS, out), Verdict::Satisfied, "{out:?}");
    }
    for out in ["All clear, no issues found.", "The site is all clear."] {
        assert_eq!(one(SAYS, out), Verdict::NotEvaluable, "{out:?}");
    }
    // Not found at all, it is violated.
    assert_eq!(one(SAYS, "Alarm: smoke detected.\n"), Verdict::Violated);
    // A quote holding markup, or a name such as `AT&T`, is read by the
    // same rule: found in more, or denied, it is the judge's.
    for (clause, out) in [
        ("contains \"<html>\"", "<html><body>ok</body></html>\n"),
        (
            "mentions \"AT&T\"",
            "We are not AT&T and never mention AT&T.\n",
        ),
        ("mentions \"[1]\"", "No citation [1] here.\n"),
        (
            "says \"[no sources]\"",
            "Sources found: 12. It is wrong to report [no sources].\n",
        ),
    ] {
        assert_eq!(
            one(clause, out),
            Verdict::NotEvaluable,
            "{clause} over {out:?}"
        );
    }
    assert_ne!(
        one_at(
            "mentions \"AT&T\"",
            "bindings/svc/summary.json",
            r#"{"do_not_mention":"AT&T"}"#
        ),
        Verdict::Satisfied
    );
    // Said alone, one word is a name, not the note asked for: the judge's.
    assert_eq!(one("mentions \"AT&T\"", "AT&T\n"), Verdict::NotEvaluable);
    assert_eq!(
        one("mentions \"AT&T Inc\"", "AT&T Inc\n"),
        Verdict::Satisfied
    );
}

/// A forbidden word hyphenated across a line end (or across a space after
/// its hyphen) is still written: never satisfied.
#[test]
fn a_forbidden_word_hyphenated_across_a_line_is_never_green() {
    for (clause, out) in [
        ("not mentioning \"lithium\"", "We avoid lith-\nium cells.\n"),
        (
            "not mentioning \"Tesla\"",
            "BYD and Tes-\nla lead the market.\n",
        ),
        (
            "not mentioning \"Tesla\"",
            "BYD and Tes\u{2010}\nla lead the market.\n",
        ),
        (
            "not mentioning \"Tesla\"",
            "BYD and Tes- la lead the market.\n",
        ),
        (
            "not mentioning \"Tesla\"",
            "BYD and Tes-\r\n  la lead the market.\n",
        ),
        ("not mentioning \"lithium\"", "We avoid lith-ium cells.\n"),
    ] {
        never_green(clause, out);
    }
    assert_eq!(
        one(
            "not mentioning \"Tesla\"",
            "BYD and NIO lead - the market.\n"
        ),
        Verdict::NotEvaluable
    );
}

/// A lower bound on words over a JSON output is met only by words of
/// one string value: several values (a comment beside the summary) are
/// the judge's to weigh.
#[test]
fn words_of_a_json_comment_meet_no_lower_bound() {
    let twenty = "Heat pump sales in Europe fell in 2024 after two record years, as subsidies were cut in several large markets and gas prices eased";
    assert_ne!(
        one_at(
            "at least 20 words",
            "bindings/svc/summary.json",
            &format!(r#"{{"summary":"alarm", "_comment":"{twenty}"}}"#)
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one_at(
            "at least 20 words",
            "bindings/svc/summary.json",
            &format!(r#"{{"summary":"{twenty}"}}"#)
        ),
        Verdict::Satisfied
    );
}

/// A line-end hyphen followed, on the next line, by something that
/// renders as nothing (a comment, a zero-width or soft-hyphen reference)
/// still joins the word.
#[test]
fn a_hyphenated_word_split_by_invisible_text_is_never_green() {
    for out in [
        "Uses lith-\n<!-- x -->ium cells.\n",
        "Uses lith-\n<!---->ium cells.\n",
        "Uses lith-\n<!-- a\nb -->ium cells.\n",
        "Uses lith-\n&zwj;ium cells.\n",
        "Uses lith-\n&#8205;ium cells.\n",
        "Uses lith-\n&ZeroWidthSpace;ium cells.\n",
        "Uses lith-\n&shy;ium cells.\n",
    ] {
        never_green("not mentioning \"lithium\"", out);
    }
}
