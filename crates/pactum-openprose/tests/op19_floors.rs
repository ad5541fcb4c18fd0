//! What a short non-answer meets backs no green: a format (`- Done.` is
//! a bulleted list), a lower bound under its floor ("I have no idea." has
//! four words), and a count whose units are notes that there is nothing
//! (`- Insufficient data.`). A field's value that names nothing (`GmbH`,
//! `der`) fills no field for sure.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";

/// Short non-answers, each one line.
const NON_ANSWERS: &[&str] = &[
    "I have no idea.\n",
    "The requested information could not be found.\n",
    "Output omitted for brevity, see the other file.\n",
    "The summary will follow in the next message.\n",
    "This section is intentionally empty.\n",
    "The response was cut off due to the token limit.\n",
    "Ich habe keine Daten gefunden. Bitte versuchen Sie es erneut.\n",
];

#[test]
fn a_lower_bound_under_ten_words_backs_no_green() {
    for clause in [
        "at least 2 words",
        "at least 3 words",
        "at least 9 words",
        "2-200 words",
        "between 3 and 500 words",
        "at least 2 words and at most 200 words",
        "a summary of at least 2 words",
    ] {
        for out in NON_ANSWERS {
            never_green(clause, out);
        }
        assert_ne!(
            one_at(clause, JSON, "{\"summary\": \"I have no idea.\"}"),
            Verdict::Satisfied,
            "{clause}"
        );
    }
    // The judge's, not a miss: a real summary is not violated.
    assert_eq!(
        one("at least 3 words", "Heat pump sales fell in 2024.\n"),
        Verdict::NotEvaluable
    );
    // Ten words and more are counted as ever.
    assert_eq!(
        one(
            "at least 10 words",
            "Heat pump sales fell in 2024 as subsidies were cut in Germany.\n"
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one("at least 10 words", "I have no idea.\n"),
        Verdict::Violated
    );
}

#[test]
fn a_lower_bound_under_three_paragraphs_or_two_units_backs_no_green() {
    let two = "The requested information could not be found.\n\nThe response was cut off due to the token limit.\n";
    never_green("at least 2 paragraphs", two);
    never_green("2+ paragraphs", two);
    for clause in [
        "at least 1 item",
        "at least one item",
        "one or more items",
        "1+ items",
        "1 or more bullet points",
        "a bulleted list of at least 1 item",
    ] {
        for out in [
            "- Done.\n",
            "- Insufficient data.\n",
            "- I have no idea.\n",
            "- Heat pumps\n",
        ] {
            never_green(clause, out);
        }
    }
    never_green("at least 1 row", "| Result |\n|---|\n| Done. |\n");
    never_green("at least 1 heading", "# Done\n\n- Done.\n");
    assert_ne!(
        one_at("valid JSON with at least 1 item", JSON, "[\"Done.\"]"),
        Verdict::Satisfied
    );
    // Three paragraphs, two items of content, are counted as ever.
    assert_eq!(
        one(
            "at least 3 paragraphs",
            "Sales fell in 2024.\n\nSubsidies were cut.\n\nGas prices eased.\n"
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one("at least 2 items", "- Daikin\n- Vaillant\n"),
        Verdict::Satisfied
    );
    // A source is read for where it leads: one is content.
    assert_eq!(
        one(
            "at least 1 source",
            "See https://www.ehpa.org/market-data/\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_format_alone_backs_no_green() {
    for (clause, out) in [
        ("a bulleted list", "- Done.\n"),
        ("a markdown table", "| Result |\n|---|\n| Done. |\n"),
        ("a numbered list", "1. Done.\n"),
        ("with headings", "# Done\n\nDone.\n"),
        ("a list", "- I have no idea.\n- Insufficient data.\n"),
    ] {
        never_green(clause, out);
    }
    assert_ne!(
        one_at("a JSON object", JSON, "{\"result\": \"done\"}"),
        Verdict::Satisfied
    );
    // Held over real content too: the judge's, for that reason alone.
    only_shape_held("a bulleted list", "- Heat pumps\n- Solar panels\n");
    only_shape_held_at("valid JSON", JSON, "{\"maker\": \"Daikin\"}");
    // A format that fails is violated as ever.
    assert_eq!(one("a bulleted list", "Just prose.\n"), Verdict::Violated);
    assert_eq!(one("a markdown table", "Just prose.\n"), Verdict::Violated);
    // Beside a count at its floor, the count backs the green.
    assert_eq!(
        one(
            "a markdown table with at least 2 rows",
            "| maker | model |\n|---|---|\n| Daikin | Altherma |\n| Vaillant | aroTHERM |\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn notes_that_there_is_nothing_are_no_units() {
    for (clause, out) in [
        (
            "at least 3 items",
            "- Done.\n- Insufficient data.\n- Please provide more details.\n",
        ),
        ("at least 2 items", "- Done.\n- Insufficient data.\n"),
        (
            "at least 3 items",
            "- I have no idea.\n- The requested information could not be found.\n- Output omitted for brevity.\n",
        ),
        (
            "at least 3 items",
            "- Erledigt.\n- Keine Daten gefunden.\n- Aucune idée.\n",
        ),
        (
            "at least 3 items",
            "- Sorry, I could not find any makers.\n- No results found.\n- See the other file.\n",
        ),
        (
            "at least 2 headings",
            "# Done\n\nText.\n\n# Insufficient data\n\nText.\n",
        ),
        (
            "at least 3 rows",
            "| maker |\n|---|\n| Done. |\n| N/A |\n| No data |\n",
        ),
        (
            "at least 3 paragraphs",
            "I have no idea.\n\nInsufficient data.\n\nThe requested information could not be found.\n",
        ),
    ] {
        // Shown, so the judge's, never violated by them alone.
        assert_eq!(one(clause, out), Verdict::NotEvaluable, "{clause}: {out}");
    }
    assert_ne!(
        one_at(
            "at least 3 items",
            JSON,
            "[\"Done.\", \"Insufficient data.\", \"Please provide more details.\"]"
        ),
        Verdict::Satisfied
    );
    // Items that only hold such a word among others are items.
    assert_eq!(
        one(
            "at least 3 items",
            "- Done deals of 2024\n- Pending orders\n- Finished projects\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_value_naming_nothing_fills_no_field_for_sure() {
    let each = "each maker has: name, url";
    for names in [
        ["GmbH", "AG", "SE"],
        ["der", "die", "das"],
        ["the", "a", "an"],
        ["le", "la", "les"],
        ["Andere", "Sonstige", "Weitere"],
    ] {
        let md: String = names
            .iter()
            .zip(["vaillant.de", "bosch.de", "daikin.eu"])
            .map(|(n, h)| format!("- name: {n}, url: https://www.{h}/\n"))
            .collect();
        assert_ne!(one(each, &md), Verdict::Satisfied, "{md}");
        let json = format!(
            "[{}]",
            names
                .iter()
                .zip(["vaillant.de", "bosch.de", "daikin.eu"])
                .map(|(n, h)| format!("{{\"name\": \"{n}\", \"url\": \"https://www.{h}/\"}}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert_ne!(one_at(each, JSON, &json), Verdict::Satisfied, "{json}");
    }
    // Real names are read as ever.
    assert_eq!(
        one(
            each,
            "- name: Vaillant GmbH, url: https://www.vaillant.de/\n- name: Bosch, url: https://www.bosch.de/\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn repeats_ordinals_and_fillers_of_other_languages_tell_no_unit_apart() {
    for out in [
        "- Daikin\n- Daikin erneut\n- Daikin nochmals\n",
        "- Daikin\n- Daikin encore\n- Daikin de nouveau\n",
        "- Daikin\n- Daikin otra vez\n- Daikin de nuevo\n",
        "- Daikin\n- Daikin ancora\n- Daikin di nuovo\n",
        "- Daikin\n- Daikin opnieuw\n- Daikin weer\n",
        "- Daikin\n- Daikin de novo\n- Daikin novamente\n",
        "- Daikin\n- Daikin also\n- Daikin too\n",
        "- Daikin\n- Daikin erste\n- Daikin zweite\n",
        "- Daikin\n- Daikin premier\n- Daikin deuxième\n",
        "- Name unknown\n- Maker unknown\n- Brand unknown\n",
        "- anonymous\n- nameless\n- redacted\n",
        "- Musterfirma\n- Beispielfirma\n- Testfirma\n",
        "- 不明です\n- わからない\n- 該当なし\n",
        "- 모름\n- 없음\n- 미상\n",
        "- неизвестно\n- нет данных\n- не указано\n",
        "- nieznany\n- brak\n- brak danych\n",
    ] {
        never_green("at least 3 items", out);
    }
    never_green("at least 2 items", "- Daikin\n- or similar\n");
    never_green(
        "at least 3 rows",
        "| Maker | Note |\n|---|---|\n| Daikin | erneut |\n| Daikin | encore |\n| Daikin | otra vez |\n",
    );
    // Makers and their models are told apart as ever.
    assert_eq!(
        one(
            "at least 3 items",
            "- Daikin Altherma\n- Vaillant aroTHERM\n- Bosch Compress\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_closing_line_disowning_the_links_above_leaves_sources_to_the_judge() {
    let links = "## Sources\n\n- https://www.ehpa.org/market-data/\n- https://www.iea.org/reports/the-future-of-heat-pumps\n- https://www.bafa.de/DE/Energie/energie_node.html\n\n";
    for after in [
        "I made these URLs up.",
        "(these three were not used)",
        "None were used.",
        "I have not read these.",
        "<!-- TODO: replace with real links -->",
    ] {
        never_green("at least 3 sources", &format!("{links}{after}\n"));
    }
    assert_eq!(
        one(
            "at least 3 sources",
            &format!("{links}All three were read on 1 December.\n")
        ),
        Verdict::Satisfied
    );
}

/// Words copied from the service's input tell no two units apart; a unit
/// naming only what it was given is still itself.
#[test]
fn words_of_the_input_tell_no_units_apart() {
    // The caller's topic here is "Solid-state batteries".
    for out in [
        "- QuantumScape\n- QuantumScape batteries\n- QuantumScape solid-state\n",
        "- QuantumScape\n- QuantumScape GmbH batteries\n- QuantumScape AG solid-state\n",
    ] {
        never_green("at least 3 items", out);
    }
    assert_ne!(
        one_at(
            "at least 3 items",
            JSON,
            "[\"QuantumScape\", \"QuantumScape batteries\", \"QuantumScape solid-state batteries\"]"
        ),
        Verdict::Satisfied
    );
    // Makers with the topic's words beside their names are told apart
    // by their names.
    assert_eq!(
        one(
            "at least 3 items",
            "- QuantumScape batteries\n- Toyota solid-state batteries\n- Samsung SDI batteries\n"
        ),
        Verdict::Satisfied
    );
}

/// Units that only name what the input named are still counted.
#[test]
fn units_naming_only_what_was_given_still_count() {
    let d = run_with(
        "## Ensures\n\n- `summary`: at least 3 items\n",
        &[(
            "bindings/svc/summary.md",
            "- Daikin: 18% share\n- Vaillant: 12% share of the market\n- Bosch\n",
        )],
    );
    write(
        d.path(),
        "bindings/caller/topic.md",
        "# topic\nbinding: input\nsource: caller\n---\nCompare Daikin, Vaillant and Bosch\n",
    );
    let g = grade_dir(d.path());
    assert_eq!(
        by_text(&g),
        vec![(
            "`summary`: at least 3 items".to_string(),
            Verdict::Satisfied
        )]
    );
}
