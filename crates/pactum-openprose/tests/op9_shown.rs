//! The ninth round: what an output shows, read as every renderer may
//! show it.

use pactum_core::Verdict;

mod common;
use common::*;

/// A fenced JSON block with front matter, struck text or an unreferenced
/// footnote around it is JSON only where those are hidden: never
/// satisfied by the measure, left to the judge.
#[test]
fn json_beside_what_some_renderers_show_is_not_measured() {
    for b in [
        "---\ntitle: x\n---\n```json\n{\"a\": 1}\n```\n",
        "```json\n{\"a\": 1}\n```\n\n~~not json~~\n",
        "~~not json~~\n```json\n{\"a\": 1}\n```\n",
        "```json\n{\"a\": 1}\n```\n\n[^1]: a footnote\n",
        "[^1]: a footnote\n\n```json\n{\"a\": 1}\n```\n",
        "<del>x</del>\n\n```json\n{\"a\": 1}\n```\n",
    ] {
        for c in ["valid JSON", "a JSON object", "JSON"] {
            assert_eq!(one(c, b), Verdict::NotEvaluable, "{c} over {b:?}");
        }
    }
    green(&[
        ("valid JSON", "```json\n{\"a\": 1}\n```\n"),
        ("valid JSON", "<!-- note -->\n```json\n{\"a\": 1}\n```\n"),
    ]);
}

/// A benchmark address (`198.18.0.0/15`) and an `.alt` name (RFC 9476)
/// are no public page: never sources.
#[test]
fn benchmark_addresses_and_alt_names_are_no_sources() {
    for b in [
        "- [a](https://198.18.0.1/a)\n- [b](https://198.19.255.254/b)\n",
        "- [a](https://news.alt/a)\n- [b](https://b.onion.alt/b)\n",
        "- [a](https://198.18.0.1/a)\n- [b](https://x.alt./b)\n",
        "- [a](https://192.0.0.8/a)\n- [b](https://x.ALT/b)\n",
        "- [a](https://3323068417/a)\n- [b](https://0xC6.0x13.0.1/b)\n",
        "- [a](https://198.18.1/a)\n- [b](https://x.alt:8443/b)\n",
    ] {
        never_green("at least 2 sources", b);
    }
    green(&[(
        "at least 2 sources",
        "- [a](https://198.20.0.1/a)\n- [b](https://alt.org/b)\n",
    )]);
}

/// A quoted word is said only where the output shows it as a word of its
/// own: not where it renders joined to another (`un*safe*`, a soft
/// hyphen, a Unicode hyphen, a digit group separator).
#[test]
fn a_quote_joined_to_a_word_when_rendered_is_not_said() {
    for (c, b) in [
        ("saying \"safe\"", "The plan is un*safe*.\n"),
        ("saying \"safe\"", "The plan is un**safe**.\n"),
        ("saying \"safe\"", "The plan is un`safe`.\n"),
        ("saying \"safe\"", "The plan is un<b>safe</b>.\n"),
        ("saying \"safe\"", "The plan is un&shy;safe.\n"),
        ("saying \"safe\"", "The plan is un\u{AD}safe.\n"),
        ("saying \"safe\"", "The plan is un\u{2010}safe.\n"),
        ("saying \"safe\"", "The plan is un\u{2011}safe.\n"),
        ("saying \"un\"", "The plan is un*safe*.\n"),
        ("saying \"100\"", "We sold 1\u{2019}100 units.\n"),
        ("saying \"100\"", "We sold 1'100 units.\n"),
        ("saying \"100\"", "We sold 1\u{A0}100 units.\n"),
        ("saying \"100\"", "We sold 1&nbsp;100 units.\n"),
        ("saying \"100\"", "We sold 1\u{202F}100 units.\n"),
        ("saying \"100\"", "We sold 1&#8239;100 units.\n"),
        // A negated quote that the rendered text shows, digit groups read
        // through, is never satisfied.
        ("not mentioning \"1100\"", "We sold 1\u{2019}100 units.\n"),
        ("not mentioning \"1100\"", "We sold 1\u{A0}100 units.\n"),
        ("not mentioning \"1100\"", "We sold 1&nbsp;100 units.\n"),
        ("not mentioning \"1100\"", "We sold 1,100 units.\n"),
        ("not mentioning \"unsafe\"", "The plan is un*safe*.\n"),
        ("not mentioning \"unsafe\"", "The plan is un&shy;safe.\n"),
        ("not mentioning \"unsafe\"", "The plan is un\u{2011}safe.\n"),
    ] {
        never_green(c, b);
    }
    green(&[
        ("saying \"safe\"", "The plan is *safe*.\n"),
        ("saying \"safe\"", "The plan is safe, and cheap.\n"),
        ("saying \"100\"", "We sold 100 units, of 1 000.\n"),
        ("not mentioning \"1100\"", "We sold 100 units.\n"),
    ]);
}

/// A lead-in line before a fenced JSON array leaves a count of its items
/// to the judge: neither violated as no items nor met as few enough.
#[test]
fn a_lead_in_before_a_fenced_array_leaves_counts_to_the_judge() {
    for (c, b) in [
        (
            "at least 3 items",
            "Here is the list:\n\n```json\n[1, 2, 3]\n```\n",
        ),
        (
            "at least 3 items",
            "Here is the list:\n```json\n[1, 2, 3]\n```\n",
        ),
        (
            "exactly 3 items",
            "Here is the list:\n\n```json\n[1, 2, 3]\n```\n",
        ),
        (
            "at most 3 items",
            "Here is the list:\n\n```json\n[1, 2, 3, 4, 5]\n```\n",
        ),
        (
            "at most 3 items",
            "---\nt: x\n---\n```json\n[1, 2, 3, 4, 5]\n```\n",
        ),
        (
            "at most 1 source",
            "Sources:\n\n```json\n[\"https://a.org/x\", \"https://b.org/y\"]\n```\n",
        ),
    ] {
        assert_eq!(one(c, b), Verdict::NotEvaluable, "{c} over {b:?}");
    }
    green(&[(
        "at least 3 items",
        "```json\n[\"oak\", \"pine\", \"elm\"]\n```\n",
    )]);
}
