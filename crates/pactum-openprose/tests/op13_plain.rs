//! A measure that held over a Markdown output backs a green only when the
//! output is in the forms pactum reads whole; over text in any other form
//! (a code block, typed bullets, values written like a program's, an
//! invisible character) the clause is the judge's. A measure that fails
//! still fails.

use pactum_core::Verdict;

mod common;
use common::*;

/// Outputs holding, beside what the measures read, items in a form they
/// do not read: never satisfied.
#[test]
fn a_green_over_a_form_not_read_is_the_judges() {
    for (clause, body) in [
        (
            "each item has: title, year",
            "- title: Daikin, year: 2020\n\n```json\n[{\"title\":\"Daikin\",\"year\":2020},{\"title\":\"Vaillant\"}]\n```\n",
        ),
        (
            "each item has: title, year",
            "- title: Daikin, year: 2020\n\n[{\"title\":\"Daikin\",\"year\":2020},{\"title\":\"Vaillant\"}]\n",
        ),
        (
            "each item has: title, year",
            "- title: Daikin, year: 2020\n\n• title: Vaillant\n",
        ),
        ("at most 2 items", "['Daikin', 'Vaillant', 'Viessmann']\n"),
        ("at most 2 items", "[Daikin, Vaillant, Viessmann]\n"),
        ("at most 2 items", "(\"Daikin\", \"Vaillant\", \"Viessmann\")\n"),
        ("at most 2 items", "\"Daikin\"\n\"Vaillant\"\n\"Viessmann\"\n"),
        ("at most 2 items", "Makers:\n\n    - Daikin\n    - Vaillant\n    - Viessmann\n"),
        ("at most 2 items", "- Daikin\n\n– Vaillant\n\n– Viessmann\n"),
        ("at most 2 items", "- Daikin\n- Vai\u{200b}llant\n"),
        ("at most 2 items", "{\"makers\": 3} and more\n"),
    ] {
        let v = one(clause, body);
        assert_ne!(v, Verdict::Satisfied, "{clause} over {body:?}");
    }
}

/// Plain Markdown, links, task lists and one JSON value are read as
/// before: satisfied where the measure holds; a measure that fails over a
/// form not read still fails.
#[test]
fn plain_forms_are_read_and_failures_still_fail() {
    for (clause, body) in [
        ("at most 2 items", "- Daikin\n- Vaillant\n"),
        (
            "at least 2 sources",
            "[Daikin](https://www.daikin.com/) and [Vaillant](https://www.vaillant.de/) make them.\n",
        ),
        ("at most 2 items", "- [ ] Daikin\n- [x] Vaillant\n"),
        ("a markdown table", "| maker | year |\n|---|---|\n| Daikin | 2020 |\n"),
        ("at least 10 words", "\"Heat pumps\", the report says, are now common in new homes across Europe.\n"),
    ] {
        assert_eq!(one(clause, body), Verdict::Satisfied, "{clause} over {body:?}");
    }
    // A code block beside one item: at least 3 items still fails.
    assert_eq!(
        one("at least 3 items", "- Daikin\n\n```\nnotes\n```\n"),
        Verdict::Violated
    );
}
