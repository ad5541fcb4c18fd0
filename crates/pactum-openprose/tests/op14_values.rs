//! Values that stand where content should be: a field's value that says
//! it has none in any words, an item holding another item, a template
//! slot a program left unfilled, a placeholder link and numbered
//! scaffolding are no evidence that the output holds what a clause asks.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";
const EACH: &str = "each item has: title, year";

/// A year that says there is none, in words no list holds, or `false`.
#[test]
fn a_field_value_saying_there_is_none_fills_no_field() {
    for v in [
        r#""not known""#,
        r#""unavailable""#,
        r#""no data""#,
        r#""Unknown year""#,
        r#""could not find""#,
        r#""not disclosed""#,
        r#""none found""#,
        "false",
    ] {
        let body =
            format!(r#"[{{"title":"Daikin","year":2020}},{{"title":"Vaillant","year":{v}}}]"#);
        assert_ne!(one_at(EACH, JSON, &body), Verdict::Satisfied, "{v}");
    }
    for body in [
        "| title | year |\n|---|---|\n| Daikin | 2020 |\n| Vaillant | no year given |\n",
        "- title: Daikin, year: 2020\n- title: Vaillant, year: not known\n",
        "| title | year |\n|---|---|\n| Daikin | 2020 |\n| Vaillant | N/A (not found) |\n",
    ] {
        never_green(EACH, body);
    }
    // Real values are read as ever.
    assert_eq!(
        one_at(
            EACH,
            JSON,
            r#"[{"title":"Daikin","year":2020},{"title":"Vaillant","year":"2021"}]"#
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one(
            EACH,
            "| title | year |\n|---|---|\n| Daikin | 2020 |\n| Vaillant | 2021 |\n"
        ),
        Verdict::Satisfied
    );
}

/// An item's own string holding another item (a label, a list, a table,
/// JSON) may be an item lacking a field.
#[test]
fn an_item_string_holding_an_item_is_the_judges() {
    for body in [
        r#"[{"title":"Daikin","year":2020,"notes":"title: Vaillant"}]"#,
        r#"[{"title":"Daikin","year":2020},{"title":"Vaillant","year":2021,"sub":"- title: Bosch"}]"#,
        r#"[{"title":"Daikin","year":2020,"notes":"{\"title\":\"Vaillant\"}"}]"#,
        r#"[{"title":"Daikin","year":2020,"notes":"| title | year |\n|---|---|\n| Vaillant | |"}]"#,
    ] {
        assert_ne!(one_at(EACH, JSON, body), Verdict::Satisfied, "{body}");
    }
    assert_eq!(
        one_at(
            EACH,
            JSON,
            r#"[{"title":"Daikin","year":2020,"notes":"Market leader in Japan."}]"#
        ),
        Verdict::Satisfied
    );
}

/// A printf slot, Python's `None` or a named placeholder is no output.
#[test]
fn an_unfilled_program_slot_is_no_output() {
    for out in [
        "%s",
        "%(summary)s",
        "Summary: %s",
        "# Summary\n\n%s",
        "None",
        "Summary: None",
        "SUMMARY_PLACEHOLDER",
        "{0}",
        "${summary}",
    ] {
        never_green("a summary", &format!("{out}\n"));
    }
    for body in [r#"{"summary":"%s"}"#, r#"{"summary":"None"}"#] {
        assert_ne!(
            one_at("a summary", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
    // A sentence that mentions a percentage is content.
    assert_eq!(
        one("a summary", "Sales rose 5% in 2024.\n"),
        kept("a summary")
    );
}

/// A link to a placeholder host or path is no source.
#[test]
fn placeholder_links_are_no_sources() {
    for out in [
        "- [Daikin](https://URL.com)\n- [Vaillant](https://xxx.com)\n- [Viessmann](https://tbd.com)\n",
        "- [Daikin](https://your-website.com)\n- [Vaillant](https://placeholder.com)\n- [Viessmann](https://todo.com)\n",
        "- [Daikin](https://www.daikin.com/TODO)\n- [Vaillant](https://www.daikin.com/[slug])\n- [Viessmann](https://www.daikin.com/N/A)\n",
        "- [Daikin](https://www.daikin.com/{id})\n- [Vaillant](https://www.vaillant.de/<page>)\n- [Viessmann](https://www.viessmann.de/...)\n",
    ] {
        never_green("at least 3 sources", out);
    }
    for u in [
        "https://URL.com",
        "https://tbd.com",
        "https://your-website.com",
        "https://www.vaillant.de/TODO",
        "https://www.vaillant.de/[slug]",
        "https://www.vaillant.de/N/A",
    ] {
        let body = format!(
            r#"[{{"title":"Daikin","url":"https://www.daikin.com/"}},{{"title":"Vaillant","url":"{u}"}}]"#
        );
        assert_ne!(
            one_at("each source has: title, url", JSON, &body),
            Verdict::Satisfied,
            "{u}"
        );
    }
    assert_eq!(
        one(
            "at least 3 sources",
            "- [Daikin](https://www.daikin.com/)\n- [Vaillant](https://link.springer.com/x)\n- [Viessmann](https://www.viessmann.de/en/products)\n"
        ),
        Verdict::Satisfied
    );
}

/// Scaffolding made distinct by a number, or an item that only points at
/// more, meets no lower bound and no format.
#[test]
fn numbered_scaffolding_meets_no_lower_bound() {
    for out in [
        "- TODO 1\n- TODO 2\n- TODO 3\n",
        "- Item 1\n- Item 2\n- Item 3\n",
        "- Placeholder 1\n- Placeholder 2\n- Placeholder 3\n",
        "- Daikin\n- Vaillant\n- %s\n",
        "- Daikin\n- Vaillant\n- None\n",
        "- Daikin\n- Vaillant\n- etc.\n",
        "- Daikin\n- Vaillant\n- and more\n",
    ] {
        never_green("at least 3 items", out);
    }
    assert_ne!(
        one_at("at least 3 items", JSON, r#"["TODO 1","TODO 2","TODO 3"]"#),
        Verdict::Satisfied
    );
    never_green(
        "at least 20 words",
        "word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12 word13 word14 word15 word16 word17 word18 word19 word20\n",
    );
    never_green(
        "a markdown report with headings",
        "# Heading 1\n\nBattery costs fell in 2024.\n",
    );
    never_green(
        "a markdown report with headings",
        "# %s\n\nBattery costs fell in 2024.\n",
    );
    never_green(
        "a markdown table",
        "| Column 1 | Column 2 |\n|---|---|\n| Row 1 | Row 1 |\n",
    );
    never_green("a numbered list", "1. Item 1\n2. Item 2\n");
    // Real items, a real heading named like a section, are read as ever.
    assert_eq!(
        one("at least 3 items", "- Daikin\n- Vaillant\n- Bosch\n"),
        Verdict::Satisfied
    );
    only_shape_held(
        "a markdown report with headings",
        "# Summary\n\nBattery costs fell in 2024.\n",
    );
}

/// An output that declines the task, or says it has nothing, exists but
/// is no evidence of what it was asked for: never green for a clause
/// asking for content; an upper bound or a prohibition it still keeps.
#[test]
fn an_output_declining_the_task_is_no_content() {
    for out in [
        "I'm sorry, but I can't help with that request.",
        "As an AI language model, I cannot browse the internet to summarise this topic.",
        "Summary unavailable.",
        "No summary could be generated.",
        "The model returned an empty response.",
        "I was unable to find any sources on this topic.",
    ] {
        for clause in ["a summary", "at least 5 words"] {
            never_green(clause, &format!("{out}\n"));
        }
    }
    never_green(
        "at least 3 items",
        "I cannot list sources:\n\n- I have no access\n- to the web\n- sorry\n",
    );
    assert_ne!(
        one_at(
            "a summary",
            JSON,
            r#"{"summary":"No summary could be generated."}"#
        ),
        Verdict::Satisfied
    );
    // A bound from above is kept by a refusal.
    assert_eq!(
        one(
            "at most 60 words",
            "I'm sorry, but I can't help with that.\n"
        ),
        Verdict::NotEvaluable
    );
    // Content that mentions a negation is content.
    for out in [
        "Regulation no longer blocks cadmium-free quantum dots.",
        "Battery costs did not fall in 2024, though demand rose.",
    ] {
        assert_eq!(
            one("a summary", &format!("{out}\n")),
            kept("a summary"),
            "{out}"
        );
    }
}

/// A JSON output reporting a failed status, and a heading that is a
/// placeholder, back no green.
#[test]
fn a_failed_status_or_an_untitled_heading_backs_nothing() {
    for body in [
        r#"{"status":"failed","reason":"timeout"}"#,
        r#"{"ok":false,"message":"rate limited"}"#,
        r#"{"exception":"TimeoutError","detail":"search took too long"}"#,
    ] {
        assert_ne!(one_at("JSON", JSON, body), Verdict::Satisfied, "{body}");
    }
    only_shape_held_at("JSON", JSON, r#"{"status":"ok","summary":"Batteries"}"#);
    never_green(
        "with headings",
        "# Untitled\n\nText here about batteries.\n",
    );
}

/// Scaffolding told apart by a letter, an ordinal or another numeral,
/// and an entry repeated with a note or a running number, meet no lower
/// bound.
#[test]
fn indexed_or_repeated_entries_meet_no_lower_bound() {
    for out in [
        "- Item A\n- Item B\n- Item C\n",
        "- First item\n- Second item\n- Third item\n",
        "- Item one\n- Item two\n- Item three\n",
        "- Item I\n- Item II\n- Item III\n",
        "- 1st item\n- 2nd item\n- 3rd item\n",
        "- Item ①\n- Item ②\n- Item ③\n",
        "- Placeholder A\n- Placeholder B\n- Placeholder C\n",
        "- TODO: first\n- TODO: second\n- TODO: third\n",
        "- Daikin\n- Daikin (see above)\n- Daikin (again)\n",
        "- Daikin 1\n- Daikin 2\n- Daikin 3\n",
    ] {
        never_green("at least 3 items", out);
    }
    never_green(
        "at least 3 paragraphs",
        "Paragraph one.\n\nParagraph two.\n\nParagraph three.\n",
    );
    never_green(
        "at least 3 rows",
        "| maker |\n|---|\n| Maker 1 |\n| Maker 2 |\n| Maker 3 |\n",
    );
    never_green(
        "at least 3 rows",
        "| maker |\n|---|\n| Daikin |\n| Daikin (cont.) |\n| Daikin (cont.) |\n",
    );
    assert_ne!(
        one_at("at least 3 items", JSON, r#"["Item A","Item B","Item C"]"#),
        Verdict::Satisfied
    );
    // Real entries with numbers of their own are read as ever.
    assert_eq!(
        one(
            "at least 3 items",
            "- Daikin Altherma 3\n- Vaillant aroTHERM plus\n- Bosch Compress 7000i\n"
        ),
        Verdict::Satisfied
    );
}

/// A format met only by scaffolding (a row repeating the header, a
/// heading and an item that only index) is no evidence of it.
#[test]
fn a_format_met_only_by_scaffolding_is_never_green() {
    never_green(
        "a markdown table",
        "| Name | Year |\n|---|---|\n| Name | Year |\n",
    );
    never_green(
        "a markdown table",
        "| Name | Year |\n|---|---|\n| Value A | Value B |\n",
    );
    never_green("a numbered list", "1. TODO: first\n2. TODO: second\n");
    never_green("a bulleted list", "- Item A\n- Item B\n");
    never_green(
        "a markdown report with headings",
        "# Section A\n\nContent goes here.\n",
    );
    only_shape_held(
        "a markdown table",
        "| Name | Year |\n|---|---|\n| Daikin | 2020 |\n",
    );
}
