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
        assert_eq!(one(clause, body), kept(clause), "{clause} over {body:?}");
    }
    // A code block beside one item: at least 3 items still fails.
    assert_eq!(
        one("at least 3 items", "- Daikin\n\n```\nnotes\n```\n"),
        Verdict::Violated
    );
}

/// An upper bound holds only where no instance may hide in a form the
/// count does not read: entries on lines of one paragraph, enumerations
/// and series in text, nested lists, line breaks after sentences, labels
/// and emphasis that look like headings, table-like lines, bare domains.
/// A quote is said only where it is used, not mentioned or denied.
#[test]
fn a_bound_that_says_no_more_than_is_never_met_over_unread_instances() {
    for (clause, body) in [
        (
            "at most 2 items",
            "Makers: 1) Daikin 2) Vaillant 3) Viessmann.\n",
        ),
        ("at most 2 items", "Makers: Daikin; Vaillant; Viessmann.\n"),
        ("at most 2 items", "Daikin\nVaillant\nViessmann\n"),
        ("at most 2 items", "- Daikin\n  - Vaillant\n  - Viessmann\n"),
        ("at most 2 items", "Daikin, Vaillant, and Viessmann\n"),
        ("at most 2 items", "a) Daikin\nb) Vaillant\nc) Viessmann\n"),
        (
            "at most 2 items",
            "i. Daikin\nii. Vaillant\niii. Viessmann\n",
        ),
        (
            "at most 2 items",
            "(1) Daikin\n(2) Vaillant\n(3) Viessmann\n",
        ),
        ("at most 2 items", "Daikin\\\nVaillant\\\nViessmann\n"),
        ("at most 2 items", "- Daikin, Vaillant and Viessmann\n"),
        ("no list", "Daikin\nVaillant\n"),
        (
            "at most 1 paragraphs",
            "Daikin makes them.  \nVaillant too.  \nViessmann too.\n",
        ),
        (
            "at most 1 paragraphs",
            "Daikin makes them.\nVaillant too.\n",
        ),
        (
            "at most 2 sources",
            "See daikin.com, vaillant.de and viessmann.de.\n",
        ),
        ("at most 3 headings", "**A**\n\n**B**\n\n**C**\n\n**D**\n"),
        ("without headings", "**Summary**\n\ntext\n"),
        ("without headings", "SUMMARY\n\ntext\n"),
        ("without headings", "Summary:\n\ntext\n"),
        ("at most 1 rows", "Daikin |\nVaillant |\n"),
        ("no table", "a\tb\n1\t2\n"),
        ("no table", "+---+---+\n| a | b |\n+---+---+\n"),
        (
            "saying \"no sources were found\"",
            "It is not true that no sources were found.\n",
        ),
        (
            "saying \"no sources were found\"",
            "\"no sources were found\" is what a bad tool says; we found five.\n",
        ),
    ] {
        assert_ne!(
            one(clause, body),
            Verdict::Satisfied,
            "{clause} over {body:?}"
        );
    }
    for (clause, body) in [
        ("at most 2 items", "Here are the makers:\n\n- Daikin\n- Vaillant\n"),
        ("exactly 2 headings", "# Market\n\n## Outlook\n\nHeat pumps sold well.\n"),
        (
            "2-3 paragraphs",
            "Sales fell in 2024 after two record years, as subsidies were cut in several\nlarge markets.\n\nThey rose again.\n",
        ),
        ("at most 2 sources", "See www.a.org/x and https://b.org/y.\n"),
        (
            "saying \"no sources were found\"",
            "No sources were found: the search tool timed out twice.\n",
        ),
        ("without headings", "Heat pumps sold well.\n\nThey will again.\n"),
        ("no table", "Daikin leads the market.\n"),
    ] {
        assert_eq!(one(clause, body), kept(clause), "{clause} over {body:?}");
    }
}

/// A quote asked, denied or under a condition anywhere in its clause is
/// not said; a lower bound on words over words that barely differ, or
/// over single characters, is no evidence of text.
#[test]
fn a_quote_or_words_that_say_nothing_for_certain_are_the_judges() {
    for (clause, body) in [
        ("saying \"all clear\"", "all clear?\n"),
        ("saying \"all clear\"", "We cannot say all clear.\n"),
        (
            "saying \"all clear\"",
            "If it were all clear we would say so.\n",
        ),
        ("saying \"all clear\"", "Is it all clear? No.\n"),
        ("saying \"all clear\"", "all clear (not really)\n"),
        ("at least 20 words", &"word ".repeat(20)),
        (
            "at least 20 words",
            "a b c d e f g h i j k l m n o p q r s t\n",
        ),
        ("at least 20 words", &"The ".repeat(20)),
    ] {
        assert_ne!(
            one(clause, body),
            Verdict::Satisfied,
            "{clause} over {body:?}"
        );
    }
    for (clause, body) in [
        ("saying \"all clear\"", "All clear: nothing to report.\n"),
        ("saying \"all clear\"", "All clear, no issues found.\n"),
        (
            "at least 20 words",
            "Heat pump sales in Europe fell in 2024 after two record years, as subsidies were cut in several large markets and gas prices eased.\n",
        ),
    ] {
        assert_eq!(one(clause, body), kept(clause), "{clause} over {body:?}");
    }
}

/// A judge's quote found in a JSON output only in its keys (or numbers,
/// booleans) quotes no text the output says: `fabricated-evidence`. A
/// quote of a string value, or of a pair holding one whole, is evidence.
#[test]
fn a_judge_quote_only_in_a_json_key_backs_nothing() {
    use pactum_core::NotEvaluableReason;
    let judged = |binding: &str, quote: &str| {
        let d = run_with(
            "## Ensures\n\n- `out`: written in French\n",
            &[("bindings/svc/out.json", binding)],
        );
        judged_run(d.path(), quote)
    };
    let fr = "Les batteries sont prometteuses et durables";
    for (out, quote) in [
        (format!("{{\"{fr}\": false}}"), fr.to_string()),
        (
            format!("{{\"checks\": {{\"{fr}\": null}}, \"n\": 2}}"),
            fr.to_string(),
        ),
        // A short value inside the quoted key is no value quoted.
        (format!("{{\"{fr}\": \"Les\"}}"), fr.to_string()),
        // A repeated key's discarded value is read by no parser.
        (
            format!("{{\"summary\": \"{fr}\", \"summary\": \"Non.\"}}"),
            fr.to_string(),
        ),
    ] {
        assert_eq!(
            judged(&out, &quote),
            (
                Verdict::NotEvaluable,
                Some(NotEvaluableReason::FabricatedEvidence)
            ),
            "{out}"
        );
    }
    for (out, quote) in [
        (format!("{{\"summary\": \"{fr}\"}}"), fr.to_string()),
        (
            format!("{{\"summary\": \"{fr}\"}}"),
            format!("\"summary\": \"{fr}\""),
        ),
    ] {
        assert_eq!(judged(&out, &quote).0, Verdict::Satisfied, "{out} {quote}");
    }
}

/// Over a JSON output the same rules read its string values, each with
/// the key that frames it: a bare domain, a quote asked, denied or under
/// a negating key, degenerate words, and arrays nested in elements back
/// no green.
#[test]
fn json_values_are_read_by_the_same_rules() {
    for (clause, body) in [
        ("at most 2 items", r#"[{"names": ["a","b","c"]}]"#),
        (
            "at most 2 sources",
            r#"{"s": "daikin.com vaillant.de viessmann.de"}"#,
        ),
        ("saying \"Daikin\"", r#"{"partner": "not Daikin"}"#),
        ("saying \"Daikin\"", r#"{"excluded": "Daikin"}"#),
        ("saying \"Daikin\"", r#"{"partner": "Daikin?"}"#),
        (
            "at least 20 words",
            r#"{"t": "word word word word word word word word word word word word word word word word word word word word"}"#,
        ),
    ] {
        assert_ne!(
            one_at(clause, "bindings/svc/summary.json", body),
            Verdict::Satisfied,
            "{clause} over {body}"
        );
    }
    for (clause, body) in [
        ("saying \"Daikin\"", r#"{"partner": "Daikin"}"#),
        ("at most 2 items", r#"[{"name": "a"}, {"name": "b"}]"#),
    ] {
        assert_eq!(
            one_at(clause, "bindings/svc/summary.json", body),
            kept(clause),
            "{clause} over {body}"
        );
    }
}

/// A character reference without its `;`, which every browser decodes in
/// HTML, spells the word: `not mentioning "Tesla"` is never satisfied.
#[test]
fn a_reference_without_its_semicolon_spells_the_word() {
    for body in [
        "<p>Our partner is T&#101sla.</p>\n",
        "<p>Our partner is T&#x65sla.</p>\n",
        "<p>Our partner is AT&ampT.</p>\n",
    ] {
        let clause = if body.contains("AT&") {
            "not mentioning \"AT&T\""
        } else {
            "not mentioning \"Tesla\""
        };
        assert_ne!(one(clause, body), Verdict::Satisfied, "{body}");
    }
}

/// An output that is itself an error report is no evidence of the
/// output asked for: the judge's, never satisfied.
#[test]
fn an_output_that_is_an_error_report_is_the_judges() {
    for (path, body) in [
        (
            "bindings/svc/summary.md",
            "# Error: crashed\n\nThe service crashed.\n",
        ),
        (
            "bindings/svc/summary.md",
            "Error: search tool failed (HTTP 503).\n",
        ),
        (
            "bindings/svc/summary.json",
            r#"{"error": {"message": "Rate limit exceeded", "type": "rate_limit"}}"#,
        ),
    ] {
        for clause in ["a summary", "at least 5 words"] {
            assert_ne!(
                one_at(clause, path, body),
                Verdict::Satisfied,
                "{clause} over {body}"
            );
        }
    }
    assert_eq!(
        one(
            "a summary",
            "Error handling improved in 2024, the report says.\n"
        ),
        kept("a summary")
    );
}
