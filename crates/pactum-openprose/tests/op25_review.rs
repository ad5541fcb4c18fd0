//! The twenty-fifth hostile review's structural wrong greens, each shown
//! green before its fix: a JSON output's flag or return code under a name
//! no list held, a JSON list said to be cut in other words, a traceback
//! in a Markdown output. None of them may back a green without a judge.

mod common;

use common::*;
use pactum_core::Verdict;

const WORDS: &str = "Heat pumps move heat from outside air into homes and cut the gas bills of most European households by half each winter";

#[test]
fn a_flag_or_a_return_code_beside_a_json_outputs_content_is_the_judges() {
    for extra in [
        r#""is_truncated": true"#,
        r#""is_complete": false"#,
        r#""interrupted": true"#,
        r#""cut_off": true"#,
        r#""has_errors": true"#,
        r#""rc": 1"#,
        r#""success": 0"#,
        r#""exitStatus": 2"#,
    ] {
        let out = format!("{{\"summary\": \"{WORDS}\", {extra}}}");
        let v = one_at("at least 10 words", "bindings/svc/summary.json", &out);
        assert_ne!(v, Verdict::Satisfied, "{extra}");
    }
    // Control: the content alone is measured.
    let out = format!("{{\"summary\": \"{WORDS}\"}}");
    assert_eq!(
        one_at("at least 10 words", "bindings/svc/summary.json", &out),
        Verdict::Satisfied
    );
}

#[test]
fn a_json_list_said_to_be_cut_in_other_words_is_the_judges() {
    let items = r#""makers": [{"name": "Daikin", "country": "Japan"}, {"name": "Vaillant", "country": "Germany"}]"#;
    for extra in [
        r#""isLastPage": false"#,
        r#""remaining": 3"#,
        r#""omitted": 2"#,
        r#""nextPageToken": "x1""#,
        r#""next_cursor": "x""#,
        r#""more": "3 more makers omitted""#,
        r#""showing": "2 of 5""#,
        r#""continuation": "abc""#,
    ] {
        let out = format!("{{{items}, {extra}}}");
        for clause in ["each maker has: name, country", "at least 2 items"] {
            let v = one_at(clause, "bindings/svc/summary.json", &out);
            assert_ne!(v, Verdict::Satisfied, "{clause} beside {extra}");
        }
    }
    // Control: the list alone, and its own count beside it.
    for out in [format!("{{{items}}}"), format!("{{{items}, \"total\": 2}}")] {
        assert_eq!(
            one_at(
                "each maker has: name, country",
                "bindings/svc/summary.json",
                &out
            ),
            Verdict::Satisfied,
            "{out}"
        );
    }
}

#[test]
fn a_traceback_in_a_markdown_output_is_the_judges() {
    for out in [
        format!("Traceback (most recent call last):\n\n{WORDS}\n"),
        format!("{WORDS}\n\nTraceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'sources'\n"),
    ] {
        assert_ne!(one("at least 10 words", &out), Verdict::Satisfied, "{out}");
    }
}

/// A wrong red: fields joined by `/`, `+`, `&` or in parentheses were
/// read as one field no item had.
#[test]
fn fields_joined_in_a_way_not_read_are_the_judges_not_violated() {
    let out = r#"[{"name": "Daikin", "country": "Japan"}, {"name": "Vaillant", "country": "Germany"}, {"name": "Bosch", "country": "Germany"}]"#;
    for fields in [
        "name/country",
        "name + country",
        "name & country",
        "name (and country)",
    ] {
        let v = one_at(
            &format!("each maker has: {fields}"),
            "bindings/svc/summary.json",
            out,
        );
        assert_eq!(v, Verdict::NotEvaluable, "{fields}");
    }
}

/// A catch-all row or an item saying the list ends is no item of its own.
#[test]
fn a_catch_all_or_an_end_of_list_item_counts_for_nothing() {
    for last in [
        "No other makers",
        "No further makers",
        "Keine weiteren",
        "Aucun autre",
        "That is all",
        "End of list",
        "Others",
        "Übrige",
    ] {
        let out = format!("- Daikin\n- {last}\n");
        assert_ne!(one("at least 2 items", &out), Verdict::Satisfied, "{last}");
    }
    for row in ["| Others | various |", "| Total | 2 |"] {
        let out = format!(
            "| maker | country |\n|---|---|\n| Daikin | Japan |\n| Vaillant | Germany |\n{row}\n"
        );
        assert_ne!(one("at least 3 rows", &out), Verdict::Satisfied, "{row}");
    }
    // Control: three makers.
    assert_eq!(
        one("at least 2 items", "- Daikin\n- Vaillant\n- Bosch\n"),
        Verdict::Satisfied
    );
}

/// One item repeated, told apart only by a hash or a uuid, counts once.
#[test]
fn items_told_apart_only_by_ids_count_once() {
    let md = "- Daikin 3f2b9c1e\n- Daikin 7d1e0b2a\n- Daikin 9c8d7e6f\n";
    assert_ne!(one("at least 3 items", md), Verdict::Satisfied);
    let json = r#"[{"name":"Daikin","uuid":"3f2b9c1e-4a5b-4c6d-8e7f-0a1b2c3d4e5f"},{"name":"Daikin","uuid":"7d1e0b2a-1b2c-4d3e-9f4a-5b6c7d8e9f0a"},{"name":"Daikin","uuid":"9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f"}]"#;
    assert_ne!(
        one_at("at least 3 items", "bindings/svc/summary.json", json),
        Verdict::Satisfied
    );
}
