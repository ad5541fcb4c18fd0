//! Negated quotes read through small capitals, marks and splits; only web
//! pages on public hosts are sources for a lower bound; placeholders and
//! non-answers are nothing; a valid empty JSON value is produced. Each wrong
//! green must be violated or left to the judge; each false red is no
//! longer violated.

use pactum_core::Verdict;

mod common;
use common::*;

/// A forbidden word spelled with small capitals, a combining mark inside,
/// hyphenated, letter-spaced or broken by a hard line break still reads
/// as that word: for the judge at least.
#[test]
fn negated_quotes_see_splits_and_marks() {
    let c = "a note not mentioning \"lithium\"";
    none_green(&[
        (c, "We use ʟithium cells.\n"),
        (c, "We use Li-thium cells.\n"),
        (c, "We use l i t h i u m cells.\n"),
        (c, "We use lith\u{308}ium cells.\n"),
        (c, "We use li\\\nthium cells.\n"),
        (c, "We use li  \nthium cells.\n"),
        ("at least 2 items", "- Apple pie\n- ᴀpple pie\n"),
    ]);
    // Other words are still no mention.
    green(&[
        (c, "We use sodium cells, like a li thium-free pack.\n"),
        (c, "We use sodium cells.\nThey last long.\n"),
    ]);
}

/// Only `http` and `https` pages on public hosts are sources for a lower
/// bound; other links still count towards an upper bound.
#[test]
fn only_public_web_pages_are_sources() {
    none_green(&[
        (
            "at least 3 sources",
            "Intro [a](ftp://a.org/1) [b](file://b.org/2) [c](sftp://c.org/3) [d](chrome://d.org/3).\n",
        ),
        (
            "at least 2 sources",
            "Intro [a](data://a.org/1) [b](x-y://b.org/2) [c](view-source:https://c.org/3).\n",
        ),
        (
            "at least 2 sources",
            "Intro [a](https://localhost.localdomain/1) [b](https://127.0.0.1/x) [c](http://[::1]/y).\n",
        ),
        (
            "at least 2 sources",
            "Intro [a](https://10.0.0.1/1) [b](https://printer.local/x).\n",
        ),
        (
            "at most 2 sources",
            "Intro [a](ftp://a.org/1) [b](file://b.org/2) [c](sftp://c.org/3).\n",
        ),
    ]);
    green(&[
        (
            "at least 2 sources",
            "Intro [a](https://a.org/1) [b](HTTP://b.org/2) and https://8.8.8.8/x.\n",
        ),
        (
            "at most 2 sources",
            "Intro [a](https://a.org/1) [b](https://b.org/2).\n",
        ),
        (
            "at most 2 sources",
            "Intro [a](https://a.org/1) [b](#part-two) [c](./notes.md) [d](/about).\n",
        ),
    ]);
}

/// Placeholder words and non-answers are nothing, as a whole output or as
/// a field's value.
#[test]
fn placeholders_and_non_answers_are_nothing() {
    none_green(&[
        ("a summary", "T.B.D.\n"),
        ("a summary", "Not yet available.\n"),
        (
            "a list where each item has: title, url",
            "- title: (none)\n  url: https://a.org/1\n",
        ),
        (
            "a list where each item has: title, url",
            "- title: Untitled\n  url: https://a.org/1\n",
        ),
    ]);
    green(&[(
        "a list where each item has: title, url",
        "- title: Battery report\n  url: https://a.org/1\n",
    )]);
}

/// A valid empty JSON value, or `N/A` or `Pending` alone, may be the
/// answer: never "not produced", though a lower bound on it still fails.
#[test]
fn empty_values_are_produced() {
    let not_violated = [
        (
            "a JSON array of the errors found (empty if none)",
            "bindings/svc/summary.md",
            "[]\n",
        ),
        ("a JSON object", "bindings/svc/summary.md", "{}\n"),
        ("valid JSON", "bindings/svc/summary.md", "null\n"),
        ("valid JSON", "bindings/svc/summary.md", "\"\"\n"),
        ("the order status", "bindings/svc/summary.md", "Pending\n"),
        (
            "the discount code applied, if any",
            "bindings/svc/summary.md",
            "N/A\n",
        ),
        (
            "a JSON array of the errors found (empty if none)",
            "bindings/svc/summary.json",
            "[]\n",
        ),
    ];
    for (clause, path, binding) in not_violated {
        assert_ne!(
            one_at(clause, path, binding),
            Verdict::Violated,
            "{clause:?} over {binding:?} at {path}"
        );
    }
    // An empty value is produced, but whether it is the answer asked for
    // is the judge's: a shape that held over it backs no green ("a JSON
    // object with the report" over `{}`).
    for (clause, path, binding) in [
        ("a JSON array", "bindings/svc/summary.json", "[]\n"),
        (
            "a JSON object with the report",
            "bindings/svc/summary.json",
            "{}\n",
        ),
        (
            "a JSON object with the report",
            "bindings/svc/summary.json",
            "{\"report\": null}\n",
        ),
        (
            "a JSON array of the summaries",
            "bindings/svc/summary.md",
            "[]\n",
        ),
    ] {
        assert_eq!(
            one_at(clause, path, binding),
            Verdict::NotEvaluable,
            "{clause:?} over {binding:?}"
        );
    }
    // Nothing shown: no answer to the judge alone.
    for (clause, path, binding) in [
        ("the order status", "bindings/svc/summary.md", "Pending\n"),
        ("a summary", "bindings/svc/summary.md", "{}\n"),
        ("a summary", "bindings/svc/summary.json", "{}\n"),
    ] {
        assert_ne!(
            one_at(clause, path, binding),
            Verdict::Satisfied,
            "{clause:?} over {binding:?}"
        );
    }
    // A lower bound still fails, and placeholders are still nothing.
    for (clause, path, binding) in [
        (
            "a JSON array of at least 3 items",
            "bindings/svc/summary.json",
            "[]\n",
        ),
        ("at least 2 items", "bindings/svc/summary.md", "[]\n"),
        ("a summary", "bindings/svc/summary.md", "TODO\n"),
        (
            "a summary",
            "bindings/svc/summary.json",
            "{\"summary\": \"TODO\"}\n",
        ),
    ] {
        assert_eq!(
            one_at(clause, path, binding),
            Verdict::Violated,
            "{clause:?} over {binding:?}"
        );
    }
}

/// One line of prose before one fenced JSON block is for the judge, not
/// "not JSON"; more prose is still not JSON.
#[test]
fn a_lead_in_before_fenced_json_is_for_the_judge() {
    let c = "a JSON array";
    let lead = "Here is the result:\n\n```json\n[1, 2]\n```\n";
    assert_ne!(one(c, lead), Verdict::Violated);
    assert_ne!(one(c, lead), Verdict::Satisfied);
    only_shape_held(c, "```json\n[1, 2]\n```\n");
    assert_eq!(
        one(
            c,
            "Here is the result:\n\n```json\n[1, 2]\n```\n\nHope this helps.\n"
        ),
        Verdict::Violated
    );
    assert_eq!(
        one(
            c,
            "Here is the result:\nas asked.\n\n```json\n[1, 2]\n```\n"
        ),
        Verdict::Violated
    );
    assert_eq!(
        one(c, "Here is the result:\n\n```python\n[1, 2]\n```\n"),
        Verdict::Violated
    );
}

/// Hosts reserved for examples and tests are no sources for a lower bound.
#[test]
fn reserved_hosts_are_no_sources() {
    none_green(&[
        (
            "at least 3 sources",
            "See https://example.com/1 https://www.example.org/2 https://x.test/3 https://a.example/4 https://b.invalid/5 https://news.example.net/6.\n",
        ),
        (
            "at least 1 source",
            "- title: A report\n  url: https://example.com/a\n",
        ),
    ]);
    green(&[(
        "at least 2 sources",
        "See https://examples.org/1 and https://contest.org/2.\n",
    )]);
}
