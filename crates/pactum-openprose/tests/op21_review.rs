//! A twenty-first review's findings: a field named twice in one JSON
//! item, a name beside the one list of items, a list or table format
//! with a count of another unit, URLs and dates no field takes whatever
//! its name, and text an HTML comment opens.

use pactum_core::Verdict;

mod common;
use common::*;

const MAKERS: &str = "bindings/svc/summary.json";

fn each(clause: &str, json: &str) -> Verdict {
    one_at(clause, MAKERS, json)
}

#[test]
fn a_field_named_twice_in_one_item_is_not_read_from_either_key() {
    for second in [
        r#""url":null,"URL":"https://www.bosch.de/""#,
        r#""url":"","Url":"https://www.bosch.de/""#,
        r#""URL":"https://www.bosch.de/","url":"N/A""#,
    ] {
        let json = format!(
            r#"[{{"name":"Daikin","url":"https://www.daikin.com/"}},{{"name":"Bosch",{second}}},{{"name":"Vaillant","url":"https://www.vaillant.de/"}}]"#
        );
        assert_ne!(
            each("each maker has: name, url", &json),
            Verdict::Satisfied,
            "{second}"
        );
    }
}

#[test]
fn a_name_beside_the_one_list_of_items_may_be_another_item() {
    for beside in [
        r#""also":"Bosch""#,
        r#""also":"Bosch and Viessmann""#,
        r#""third_maker":"Bosch","total":3"#,
    ] {
        let json = format!(
            r#"{{"makers":[{{"name":"Daikin","url":"https://www.daikin.com/"}},{{"name":"Vaillant","url":"https://www.vaillant.de/"}}],{beside}}}"#
        );
        assert_ne!(
            each("each maker has: name, url", &json),
            Verdict::Satisfied,
            "{beside}"
        );
    }
    // Numbers beside it name no item.
    let json = r#"{"makers":[{"name":"Daikin","url":"https://www.daikin.com/"},{"name":"Vaillant","url":"https://www.vaillant.de/"}],"total":2}"#;
    assert_eq!(each("each maker has: name, url", json), Verdict::Satisfied);
}

#[test]
fn a_format_with_a_count_of_another_unit_is_of_that_one_list_or_table() {
    let links = "Heat pump makers are described in detail by https://www.daikin.com/ and https://www.vaillant.de/ and https://www.bosch.de/ today.\n\n";
    let table1 = "| maker | country |\n|---|---|\n| Daikin | Japan |\n\n";
    let items3 = "- Daikin makes heat pumps\n- Vaillant builds boilers\n- Bosch makes tools\n";
    for (clause, out) in [
        ("a bulleted list of at least 3 sources", format!("{links}- Daikin makes heat pumps in Belgium\n- Vaillant builds boilers in Remscheid\n")),
        ("a numbered list of at least 3 links", format!("{links}1. Daikin makes heat pumps\n2. Vaillant builds boilers\n")),
        ("a markdown table of at least 3 sources", format!("{links}| maker | country |\n|---|---|\n| Daikin | Japan |\n| Vaillant | Germany |\n")),
        ("a bulleted list of at least 12 words", "Heat pumps are spreading fast across Europe because subsidies grew and gas prices rose sharply.\n\n- Daikin\n- Vaillant\n".into()),
        ("a markdown table of at least 3 items", format!("{table1}{items3}")),
        ("a numbered list of at least 3 rows", "1. Daikin makes heat pumps\n\n| maker | country |\n|---|---|\n| Daikin | Japan |\n| Vaillant | Germany |\n| Bosch | Germany |\n".into()),
        ("a numbered list of at least 3 headings", "# Daikin heat pumps\n\n# Vaillant boilers\n\n# Bosch products\n\n1. Daikin makes heat pumps\n".into()),
    ] {
        assert_ne!(one(clause, &out), Verdict::Satisfied, "{clause} over {out:?}");
    }
    // The list alone, its sources in it: measured.
    assert_eq!(
        one(
            "a bulleted list of at least 3 sources",
            "- Daikin makes heat pumps in Japan: https://www.daikin.com/\n- Vaillant builds boilers in Germany: https://www.vaillant.de/\n- Bosch makes heat pumps and tools: https://www.bosch.de/\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_placeholder_url_or_an_impossible_date_fills_no_field_whatever_its_name() {
    for (field, bad) in [
        ("website", "https://URL"),
        ("homepage", "https://..."),
        ("site", "https://example.com/"),
        ("href", "http://localhost/"),
        ("established", "2020-02-30"),
        ("since", "1970-01-01"),
        ("as_of", "31.04.2020"),
    ] {
        let json = format!(
            r#"[{{"name":"Daikin","{field}":"https://www.daikin.com/"}},{{"name":"Bosch","{field}":"{bad}"}}]"#
        );
        assert_ne!(
            each(&format!("each maker has: name, {field}"), &json),
            Verdict::Satisfied,
            "{field}: {bad}"
        );
        let md = format!(
            "- name: Daikin, {field}: https://www.daikin.com/\n- name: Bosch, {field}: {bad}\n"
        );
        assert_ne!(
            one(&format!("each maker has: name, {field}"), &md),
            Verdict::Satisfied,
            "{field}: {bad} (Markdown)"
        );
    }
    // A real page and a real date fill them.
    let json = r#"[{"name":"Daikin","website":"https://www.daikin.com/","established":"1924-10-25"},{"name":"Bosch","website":"https://www.bosch.de/","established":"1886-11-15"}]"#;
    assert_eq!(
        each("each maker has: name, website, established", json),
        Verdict::Satisfied
    );
}

#[test]
fn text_after_a_comment_on_its_line_is_a_block_no_paragraph_bound_overlooks() {
    let p = |s: &str| {
        format!("{s} makers are building new heat pump factories across Europe this year, and demand keeps growing.")
    };
    let (p1, p2, p3, p4) = (p("Daikin"), p("Vaillant"), p("Bosch"), p("Viessmann"));
    for (clause, out) in [
        (
            "exactly 3 paragraphs",
            format!("{p1}\n\n<!-- c --> {p4}\n\n{p2}\n\n{p3}\n"),
        ),
        (
            "between 3 and 3 paragraphs",
            format!("{p1}\n\n{p2}\n\n{p3}\n\n<!----> {p4}\n"),
        ),
        (
            "a markdown report with headings and 3-4 paragraphs",
            format!("# Heat pumps\n\n{p1}\n\n<!-- c --> {p4}\n\n<!-- d --> {p4}\n\n{p2}\n\n{p3}\n"),
        ),
    ] {
        assert_ne!(
            one(clause, &out),
            Verdict::Satisfied,
            "{clause} over {out:?}"
        );
    }
}

#[test]
fn more_makers_in_a_nested_list_or_a_second_column_are_not_passed_over() {
    for out in [
        "- name: Daikin, url: https://www.daikin.com/\n  - Bosch\n  - Viessmann\n- name: Vaillant, url: https://www.vaillant.de/\n",
        "- name: Daikin, url: https://www.daikin.com/\n  1. Bosch\n  2. Viessmann\n- name: Vaillant, url: https://www.vaillant.de/\n",
        "| name | URL | url |\n|---|---|---|\n| Daikin | https://www.daikin.com/ | https://www.daikin.com/ |\n| Bosch | https://www.bosch.de/ | N/A |\n",
        "| name | URL | url |\n|---|---|---|\n| Daikin | https://www.daikin.com/ | |\n| Bosch | https://www.bosch.de/ | |\n",
    ] {
        assert_ne!(one("each maker has: name, url", out), Verdict::Satisfied, "{out:?}");
    }
}

#[test]
fn a_row_of_the_headers_words_and_a_templates_is_no_row() {
    let out = "| Maker | Country |\n|---|---|\n| Maker name | Country name |\n| Daikin | Japan |\n";
    assert_ne!(
        one("a markdown table with at least 2 rows", out),
        Verdict::Satisfied
    );
    assert_ne!(one("at least 2 rows", out), Verdict::Satisfied);
}

#[test]
fn text_after_a_block_tag_on_its_line_is_a_block_no_paragraph_bound_overlooks() {
    let p = |s: &str| {
        format!("{s} makers are building new heat pump factories across Europe this year, and demand keeps growing.")
    };
    for tag in ["<center>", "<main>", "<nav>"] {
        let out = format!(
            "{}\n\n{tag} {}\n\n{}\n\n{}\n",
            p("Daikin"),
            p("Viessmann"),
            p("Vaillant"),
            p("Bosch")
        );
        assert_ne!(
            one("exactly 3 paragraphs", &out),
            Verdict::Satisfied,
            "{tag}"
        );
    }
}

/// A scratch file reporting that the service failed, as an output's
/// failed status is read, leaves the run unread: whether the service
/// failed cannot be told.
#[test]
fn a_scratch_status_saying_the_service_failed_is_not_passed_over() {
    for (file, text) in [
        (
            "workspace/svc/status.json",
            r#"{"status": "failed", "message": "search crashed"}"#,
        ),
        (
            "workspace/svc/result.json",
            r#"{"ok": false, "detail": "search crashed"}"#,
        ),
        (
            "workspace/svc/status.md",
            "Status: FAILED - search crashed\n",
        ),
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: at least 10 words\n",
            &[(
                "bindings/svc/summary.md",
                "Heat pump sales in Europe fell in 2024 after two record years of growth.\n",
            )],
        );
        write(d.path(), file, text);
        assert!(pactum_openprose::import_run(d.path()).is_err(), "{file}");
    }
}

#[test]
fn a_list_said_to_be_cut_short_is_not_all_the_items() {
    let two = r#"[{"name":"Daikin","url":"https://www.daikin.com/"},{"name":"Vaillant","url":"https://www.vaillant.de/"}]"#;
    for beside in [
        r#""truncated":true"#,
        r#""has_more":true"#,
        r#""total":5"#,
        r#""count":3"#,
        // A flag's sense is not read from its name (`isLastPage: false`
        // says the list is cut): any flag beside the list is the judge's.
        r#""truncated":false"#,
    ] {
        let json = format!(r#"{{"makers":{two},{beside}}}"#);
        assert_ne!(
            each("each maker has: name, url", &json),
            Verdict::Satisfied,
            "{beside}"
        );
    }
    let json = format!(r#"{{"makers":{two},"total":2}}"#);
    assert_eq!(
        each("each maker has: name, url", &json),
        Verdict::Satisfied,
        "its own count beside the list"
    );
}
