//! The twelfth round: wrong greens the tenth hostile review found, each
//! shown here before it was fixed.

use pactum_core::Verdict;

mod common;
use common::*;

/// A workspace file holding an error heading whose name, folded, holds
/// `error` but is no `__error.md` (a copy's name, a near spelling) is
/// read as the service's error or refused naming it, never passed over.
#[test]
fn an_error_file_under_a_copy_name_is_never_passed_over() {
    for name in [
        "__error (1).md",
        "__error copy.md",
        "__error2.md",
        "__error-1.md",
        "__error-2026-12-01.md",
        "__error_.md",
        "__error__.md",
        "___error.md",
        "_error.md",
        "__ error.md",
        "error.md",
        "ERROR.md",
        "__errors.md",
        "sub/error (2).md",
    ] {
        workspace_file_never_passed_over(name, "# Error: crashed\n\nThe service crashed.\n");
    }
}

/// A negated quote over an output holding a JSON string escape
/// (`"T\u0065sla"`), which every reader of the JSON decodes, is never
/// satisfied: the escape may spell the forbidden text.
#[test]
fn a_negated_quote_over_a_json_escape_is_never_satisfied() {
    for (path, body) in [
        ("bindings/svc/summary.json", r#"{"partner": "T\u0065sla"}"#),
        (
            "bindings/svc/summary.json",
            r#"{"partner": "\u0054\u0065\u0073\u006c\u0061"}"#,
        ),
        ("bindings/svc/summary.json", r#"{"T\u0065sla": true}"#),
        ("bindings/svc/summary.md", r#"["T\u0065sla Powerwall"]"#),
        ("bindings/svc/summary.json", r#"{"partner": "Tesl\u0061"}"#),
    ] {
        let v = one_at("not mentioning \"Tesla\"", path, body);
        assert_ne!(v, Verdict::Satisfied, "{body}");
    }
}

/// An upper or exact bound on items over an output showing its entries
/// as table rows (GFM or HTML), bullet-like characters or `<br>` lines,
/// which the count does not read, is never met.
#[test]
fn an_upper_bound_on_items_over_rows_bullet_characters_or_breaks_is_never_met() {
    let table = "| maker |\n|---|\n| Daikin |\n| Vaillant |\n| Viessmann |\n";
    let lead = format!("Makers:\n\n{table}");
    let list_then = format!("- Daikin\n\n{table}");
    for clause in [
        "at most 2 items",
        "at most 2 entries",
        "at most 2 bullet points",
        "at most 2 steps",
        "exactly 2 items",
    ] {
        for body in [
            table,
            &lead,
            &list_then,
            "<table><tr><td>Daikin</td></tr><tr><td>Vaillant</td></tr><tr><td>Viessmann</td></tr></table>\n",
            "• Daikin\n• Vaillant\n• Viessmann\n",
            "◦ Daikin\n◦ Vaillant\n◦ Viessmann\n",
            "‣ Daikin\n‣ Vaillant\n‣ Viessmann\n",
            "Daikin • Vaillant • Viessmann\n",
            "Daikin<br>Vaillant<br>Viessmann\n",
            "Daikin<BR/>Vaillant<br />Viessmann\n",
        ] {
            never_green(clause, body);
        }
    }
}

/// An upper bound on items over a JSON array pactum does not read as the
/// output's JSON (after a byte order mark, a comment line, in `<pre>` or a
/// code span) is never met: its elements may be the items counted.
#[test]
fn an_upper_bound_on_items_over_json_not_read_as_json_is_never_met() {
    let a = r#"["Daikin","Vaillant","Viessmann"]"#;
    for body in [
        format!("\u{feff}{a}\n"),
        format!("<!-- generated -->\n{a}\n"),
        format!("// makers\n{a}\n"),
        format!("<pre>{a}</pre>\n"),
        format!("`{a}`\n"),
        format!("The makers: `{a}`.\n"),
        "\u{feff}{\"makers\": [\"Daikin\", \"Vaillant\", \"Viessmann\"]}\n".to_string(),
    ] {
        never_green("at most 2 items", &body);
        never_green("exactly 2 items", &body);
    }
}

/// An upper or exact bound on sources over an output linking pages by
/// scheme-relative references (`//host/path`), which a browser opens as
/// pages, is never met.
#[test]
fn an_upper_bound_on_sources_over_scheme_relative_links_is_never_met() {
    for (clause, body) in [
        (
            "at most 2 sources",
            "See [a](//www.daikin.com/a), [b](//www.vaillant.de/b), [c](//www.viessmann.de/c).\n",
        ),
        (
            "at most 2 sources",
            "See [a](///www.daikin.com/a), [b](///www.vaillant.de/b), [c](///www.viessmann.de/c).\n",
        ),
        (
            "exactly 2 sources",
            "See [a](https://www.daikin.com/a), [b](https://www.vaillant.de/b), [c](//www.viessmann.de/c).\n",
        ),
        (
            "at most 2 sources",
            "- <//www.daikin.com/a>\n- <//www.vaillant.de/b>\n- <//www.viessmann.de/c>\n",
        ),
        (
            "at most 2 sources",
            "[a]: //www.daikin.com/a\n[b]: //www.vaillant.de/b\n[c]: //www.viessmann.de/c\n\n[a] [b] [c]\n",
        ),
        (
            "at most 2 sources",
            r#"["//www.daikin.com/a", "//www.vaillant.de/b", "//www.viessmann.de/c"]"#,
        ),
    ] {
        never_green(clause, body);
    }
}

/// An output that is only an unfilled template in a form other than
/// `{{…}}` (`(blank)`, `[Summary]`, `%SUMMARY%`, `$SUMMARY`, `<%= %>`, a
/// dash after a label, a to-do sentence) is never satisfied, and `20XX`
/// is no year in an `each` field.
#[test]
fn more_unfilled_templates_are_never_satisfied() {
    for o in [
        "(blank)",
        "(empty)",
        "(none)",
        "(no content)",
        "No content.",
        "Summary: (blank)",
        "Summary: —",
        "Summary: –",
        "[Summary]",
        "[summary here]",
        "%SUMMARY%",
        "$SUMMARY",
        "__SUMMARY__",
        "<%= summary %>",
        "#{summary}",
        "[[summary]]",
        "Write the summary here.",
    ] {
        never_green("at most 50 words", &format!("{o}\n"));
    }
    never_green(
        "each source has: title, year",
        "| title | year |\n|---|---|\n| Heat pumps | 2024 |\n| Subsidies | 20XX |\n",
    );
    never_green(
        "each source has: title, year",
        "| title | year |\n|---|---|\n| Heat pumps | 2024 |\n| Subsidies | 202X |\n",
    );
}

/// A quoted word joined to the text beside it by a minus sign, a
/// hyphenation point or a hyphen look-alike, or a quoted number after an
/// en dash used as a minus, `˗` or `±`, or inside `1·100`, is not said.
#[test]
fn a_quote_joined_by_more_hyphen_and_minus_forms_is_not_said() {
    for j in ['\u{2212}', '\u{2027}', '\u{02d7}', '\u{2043}', '\u{2796}'] {
        never_green(
            "saying \"safe\"",
            &format!("The battery is un{j}safe today.\n"),
        );
    }
    for o in [
        "The change was \u{2013}100 units.\n",
        "The change was \u{02d7}100 units.\n",
        "The change was \u{b1}100 units.\n",
        "The price is 1\u{b7}100 units.\n",
        "\u{2013}100\n",
    ] {
        never_green("saying \"100\"", o);
    }
}

/// A bullet or table row naming an output in code or emphasis anywhere
/// in it, in a section that holds no clause, is refused naming its line
/// or graded: never dropped.
#[test]
fn a_bullet_naming_an_output_mid_sentence_outside_the_clauses_is_not_dropped() {
    for body in [
        "## Ensures\n\n- `out`: a list\n\n## Requirements\n\n- The `out` list has at least 5 items",
        "## Ensures\n\n- `out`: a list\n\n## Constraints\n\n- at least 5 items in `out`",
        "## Ensures\n\n- `out`: a list\n\n## Output format\n\n- Make sure `out` has at least 5 items",
        "## Ensures\n\n- `out`: a list\n\n## Quality bar\n\n| what | bar |\n|---|---|\n| list | `out` has at least 5 items |",
        "## Ensures\n\n- `out`: a list\n\n## Requirements\n\n- The **out** list has at least 5 items",
    ] {
        five_items_not_dropped(body);
    }
}
