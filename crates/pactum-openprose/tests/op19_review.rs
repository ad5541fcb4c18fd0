//! A nineteenth review's findings: notes of nothing in more shapes and
//! languages, a non-answer or a bare link beside the one source asked
//! for, empty outlines and labels, one word said alone, a header row
//! repeated, and a count written with a thousands separator.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";

#[test]
fn a_count_with_a_thousands_separator_is_that_number() {
    let out = "Heat pump sales in Europe fell in 2024 after two record years, as subsidies were cut in Germany and gas prices eased across the region.\n";
    for clause in [
        "at most 1,000 words",
        "up to 1,000 words",
        "at most 1 000 words",
        "at most 1’000 words",
        "no more than 2,500 words",
    ] {
        // An upper bound that held is the judge's; never a miss.
        assert_eq!(one(clause, out), Verdict::NotEvaluable, "{clause}");
    }
    assert_eq!(one("at least 1,000 words", out), Verdict::Violated);
    assert_eq!(one("between 10 and 1,000 words", out), Verdict::Satisfied);
    // A decimal point or a separator read either way is not read.
    for clause in ["at least 10.0 words", "at most 1.000 words"] {
        assert_eq!(one(clause, out), Verdict::NotEvaluable, "{clause}");
    }
}

#[test]
fn notes_of_nothing_in_more_shapes_and_languages_are_no_units() {
    for out in [
        "- Daikin\n- Je n'ai aucune idée.\n",
        "- Daikin\n- No tengo ni idea.\n",
        "- Daikin\n- Ik heb geen idee.\n",
        "- Daikin\n- 我不知道。\n",
        "- Daikin\n- 申し訳ありません。\n",
        "- Daikin\n- Bitte geben Sie mehr Details an.\n",
        "- Daikin\n- Siehe die andere Datei.\n",
        "- Daikin\n- Done ✅\n",
        "- Daikin\n- I have no idea 🤷\n",
        "- Daikin\n- Insufficient data :(\n",
        "- Daikin\n- Done (see above)\n",
        "- Daikin\n- Done - see above\n",
        "- Daikin\n- Ok, done.\n",
        "- Siehe oben.\n- Voir ci-dessus.\n",
        "- See attached file.\n- See previous message.\n",
        "- Which region do you mean?\n- Which year should I cover?\n",
        "- Done. Done.\n- Insufficient data. Insufficient data.\n",
    ] {
        never_green("at least 2 items", out);
    }
    never_green(
        "at least 2 rows",
        "| # | Note |\n|---|---|\n| 1 | Done. |\n| 2 | Insufficient data. |\n",
    );
    never_green(
        "at least 3 paragraphs",
        "Summary:\n\nDetails:\n\nConclusion:\n",
    );
    never_green("at least 3 paragraphs", "Yes.\n\nNo.\n\nMaybe.\n");
    assert_ne!(
        one_at(
            "at least 2 items",
            JSON,
            "[\"Done ✅\", \"I have no idea 🤷\"]"
        ),
        Verdict::Satisfied
    );
    // Items of content with such a word among others are items.
    assert_eq!(
        one(
            "at least 2 items",
            "- Daikin: finished the 2024 rollout\n- Vaillant: okay results in Germany\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_link_beside_nothing_of_its_own_backs_no_green() {
    for (clause, out) in [
        (
            "a summary with at least 1 source",
            "https://www.ehpa.org/\n",
        ),
        (
            "a summary with at least 1 source",
            "See https://www.ehpa.org/\n",
        ),
        (
            "a summary with at least 1 source",
            "Done. https://www.ehpa.org/\n",
        ),
        (
            "at least 1 source",
            "I have no idea. https://www.ehpa.org/\n",
        ),
        ("at least 1 source", "TODO https://www.ehpa.org/\n"),
        (
            "at least 1 source",
            "Insufficient data. See https://www.ehpa.org/\n",
        ),
        ("at least 2 headings", "# Introduction\n\n# Conclusion\n"),
        (
            "at least 10 words",
            "# Heat pumps in Europe and the heat pumps of Europe\n",
        ),
    ] {
        never_green(clause, out);
    }
    // Links given as sources, and a summary beside its source, are read.
    assert_eq!(
        one(
            "at least 3 sources",
            "See https://a.net/1, https://b.net/2 and https://c.net/3.\n"
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one(
            "a summary with at least 1 source",
            "Heat pump sales fell in 2024 as subsidies were cut (https://www.ehpa.org/market-data/).\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn one_word_said_alone_is_a_name_not_the_note_asked_for() {
    for (clause, out) in [
        ("a summary mentioning \"Daikin\"", "Daikin\n"),
        ("a report containing \"Daikin\"", "**Daikin**\n"),
        ("a summary that includes \"Vaillant\"", "Vaillant.\n"),
    ] {
        assert_eq!(one(clause, out), Verdict::NotEvaluable, "{clause}");
    }
    assert_eq!(
        one(
            "saying \"no sources were found\"",
            "No sources were found.\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_row_repeating_the_header_is_no_row() {
    for out in [
        "| Maker | Country |\n|---|---|\n| Maker | Country |\n| Daikin | Japan |\n",
        "| Maker | Country |\n|---|---|\n| Makers | Countries |\n| Daikin | Japan |\n",
    ] {
        never_green("at least 2 rows", out);
    }
    assert_eq!(
        one(
            "at least 2 rows",
            "| Maker | Country |\n|---|---|\n| Vaillant | Germany |\n| Daikin | Japan |\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_pointer_to_a_link_is_no_summary() {
    for out in [
        "Please see https://www.ehpa.org/ for details.\n",
        "[Click here](https://www.ehpa.org/)\n",
        "More information at https://www.ehpa.org/ and elsewhere.\n",
        "The answer is here: https://www.ehpa.org/\n",
        "For a summary, visit https://www.ehpa.org/ please.\n",
    ] {
        never_green("a summary with at least 1 source", out);
    }
    // An item that says where something is stays an item.
    assert_eq!(
        one(
            "at least 2 items",
            "- Daikin is at the top of the 2024 ranking\n- Vaillant sales are above 2023 levels\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn shorteners_consoles_and_search_front_pages_are_no_sources() {
    for url in [
        "https://search.app/xyz12",
        "https://a.co/d/abc123",
        "https://amzn.eu/d/abc123",
        "https://dub.sh/abc",
        "https://platform.openai.com/playground/p/abc123",
        "https://console.anthropic.com/workbench/abc",
        "https://smith.langchain.com/public/abc/r",
        "https://www.google.com/",
        "https://scholar.google.com/",
        "https://duckduckgo.com/",
        "https://web.archive.org/",
    ] {
        never_green(
            "at least 1 source",
            &format!("Heat pump sales fell in 2024 as subsidies were cut. Source: {url}\n"),
        );
    }
    assert_eq!(
        one(
            "at least 1 source",
            "Heat pump sales fell in 2024 as subsidies were cut. Source: https://www.ehpa.org/market-data/\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn one_maker_told_apart_by_notes_of_nothing_is_one_unit() {
    for out in [
        "- Daikin – Done.\n- Daikin – Insufficient data.\n",
        "- Daikin – Untitled\n- Daikin – Ohne Titel\n",
        "- Daikin – Keine Daten\n- Daikin – Sin datos\n",
    ] {
        never_green("at least 2 items", out);
    }
    never_green(
        "at least 2 rows",
        "| Maker | Note |\n|---|---|\n| Daikin | Done. |\n| Daikin | Insufficient data. |\n",
    );
    assert_eq!(
        one(
            "at least 2 items",
            "- Daikin – Japan\n- Vaillant – Germany\n"
        ),
        Verdict::Satisfied
    );
}

/// Saying exactly the quoted texts, joined as the clause joins them, is
/// what was asked, not a copy of the contract.
#[test]
fn the_quoted_texts_joined_are_no_copy_of_the_contract() {
    for (clause, out) in [
        ("saying \"Daikin\" and \"Bosch\"", "Daikin and Bosch.\n"),
        (
            "a summary including \"Daikin\" and \"Bosch\"",
            "Daikin and Bosch\n",
        ),
    ] {
        assert_ne!(one(clause, out), Verdict::Violated, "{clause}");
    }
    // A copy of the contract's other words is still a copy.
    assert_eq!(
        one(
            "saying \"Daikin\" and \"Bosch\"",
            "saying Daikin and Bosch\n"
        ),
        Verdict::Violated
    );
}
