//! `each X has: a, b, c` is universal: satisfied only when pactum read
//! every item a reader of the output sees, and every field's value is
//! one a reader can use. Each test here failed before its fix.

use pactum_core::outcome::Evidence;
use pactum_core::Verdict;

mod common;
use common::*;

const EACH: &str = "each item has: title, year";
const SOURCES: &str = "each source has: title, url";

fn json(clause: &str, body: &str) -> Verdict {
    one_at(clause, "bindings/svc/summary.json", body)
}

/// The clause's quote over a Markdown `binding` (the one the verdict
/// rests on), with its verdict.
fn quoted(clause: &str, binding: &str) -> (Verdict, Vec<String>) {
    let d = run_with(
        &format!("## Ensures\n\n- `summary`: {clause}\n"),
        &[("bindings/svc/summary.md", binding)],
    );
    let g = grade_dir(d.path());
    let c = &g.contracts[0].clauses[0];
    let quotes = c
        .evidence
        .iter()
        .filter_map(|e| match e {
            Evidence::Quote { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    (c.verdict, quotes)
}

/// A `url` field holding a placeholder URL (`https://URL`,
/// `https://...`), a host reserved for examples or a host under no
/// top-level domain is absent, in JSON and in Markdown, as
/// `https://TBD` already was.
#[test]
fn a_url_field_holding_no_public_page_is_absent() {
    for u in [
        "https://...",
        "https://URL",
        "https://N/A",
        "https://url",
        "https://link",
        "https://example.com/x",
        "https://www.example.org",
        "https://a.b",
        "https://TBD",
        "https://xxx",
        "https://",
    ] {
        let body = format!(
            r#"[{{"title":"Daikin","url":"https://www.daikin.com/"}},{{"title":"Vaillant","url":"{u}"}}]"#
        );
        assert_eq!(json(SOURCES, &body), Verdict::Violated, "{u}");
    }
    for body in [
        "| title | url |\n|---|---|\n| Daikin | https://www.daikin.com/ |\n| Vaillant | https://URL |\n",
        "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: https://...\n",
        "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: https://example.com/v\n",
    ] {
        let (v, quotes) = quoted(SOURCES, body);
        assert_eq!(v, Verdict::Violated, "{body}");
        assert!(quotes.iter().any(|q| q.contains("Vaillant")), "{body}: {quotes:?}");
    }
}

/// Controls: items whose every field holds a value, URLs of real pages,
/// are satisfied, in JSON and in Markdown.
#[test]
fn complete_items_with_real_pages_stay_satisfied() {
    let body = r#"[{"title":"Daikin","url":"https://www.daikin.com/"},{"title":"Vaillant","url":"https://www.vaillant.de/heat-pumps"}]"#;
    assert_eq!(json(SOURCES, body), Verdict::Satisfied);
    assert_eq!(
        json(SOURCES, &format!(r#"{{"sources":{body},"count":2}}"#)),
        Verdict::Satisfied
    );
    assert_eq!(
        json(
            EACH,
            r#"[{"title":"Daikin","year":2020,"tags":["heat pumps","Japan"]},{"title":"Vaillant","year":2021,"tags":[],"price":{"amount":9,"currency":"EUR"}}]"#
        ),
        Verdict::Satisfied
    );
    green(&[
        (
            SOURCES,
            "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: https://www.vaillant.de/\n",
        ),
        (
            SOURCES,
            "| title | url |\n|---|---|\n| Daikin | https://www.daikin.com/ |\n| Vaillant | https://www.vaillant.de/ |\n",
        ),
        (
            EACH,
            "- title: Daikin, year: 2020\n- title: Vaillant, year: 2021\n",
        ),
    ]);
}

/// Control: an item of a plain Markdown list lacking a field is a
/// counterexample, quoted.
#[test]
fn an_item_lacking_a_field_in_a_plain_list_stays_violated() {
    let (v, quotes) = quoted(EACH, "- title: Daikin, year: 2020\n- title: Vaillant\n");
    assert_eq!(v, Verdict::Violated);
    assert!(
        quotes.iter().any(|q| q.contains("title: Vaillant")),
        "{quotes:?}"
    );
}

/// Over a JSON object, items beside its one array (one level deeper, in
/// another object, a lone object) may be items pactum did not read: the
/// clause is the judge's, never satisfied.
#[test]
fn items_beside_a_json_objects_array_leave_the_clause_to_the_judge() {
    for body in [
        r#"{"items":[{"title":"Daikin","year":2020}],"next_page":{"items":[{"title":"Vaillant"}]}}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"meta":{"more":[{"title":"Vaillant"}]}}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"item":{"title":"Vaillant"}}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"more":[{"title":"Vaillant"}]}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"meta":{"page":1,"next":{"title":"Vaillant"}}}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"more":"title: Vaillant"}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"more":"- Vaillant\n- Viessmann"}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"more":"[{\"title\":\"Vaillant\"}]"}"#,
    ] {
        assert_eq!(json(EACH, body), Verdict::NotEvaluable, "{body}");
    }
    // An item's own list of records (children, nested sources) may be
    // items too.
    for body in [
        r#"[{"title":"Daikin","year":2020,"children":[{"title":"Vaillant"}]}]"#,
        r#"[{"title":"Daikin","year":2020,"related":{"title":"Vaillant"}}]"#,
        r#"[{"title":"Daikin","year":2020,"groups":[[{"title":"Vaillant"}]]}]"#,
    ] {
        assert_eq!(json(EACH, body), Verdict::NotEvaluable, "{body}");
    }
    // The array's own counterexample is still read.
    assert_eq!(
        json(
            EACH,
            r#"{"items":[{"title":"Daikin","year":2020},{"title":"Vaillant"}]}"#
        ),
        Verdict::Violated
    );
}

/// A field's value repeating its own name, a bracketed slot or a type
/// name is absent, in JSON as in a Markdown table or list.
#[test]
fn a_value_naming_its_field_a_slot_or_a_type_is_absent() {
    for (title, year) in [
        (r#""title""#, r#""year""#),
        (r#""Title""#, "2021"),
        (r#""[title]""#, "2021"),
        (r#""<title>""#, "2021"),
        (r#""{title}""#, "2021"),
        (r#""[Title of the item]""#, "2021"),
        (r#""string""#, "2021"),
        (r#""Vaillant""#, r#""number""#),
        (r#""Vaillant""#, r#""[year]""#),
        (r#""Vaillant""#, r#""<integer>""#),
        (r#""Vaillant""#, r#""0000""#),
    ] {
        let body =
            format!(r#"[{{"title":"Daikin","year":2020}},{{"title":{title},"year":{year}}}]"#);
        assert_eq!(json(EACH, &body), Verdict::Violated, "{body}");
    }
    for body in [
        "- title: Daikin, year: 2020\n- title: [title], year: 2021\n",
        "- title: Daikin, year: 2020\n- title: Vaillant, year: year\n",
        "- title: Daikin, year: 2020\n- title: string, year: 2021\n",
        "| title | year |\n|---|---|\n| Daikin | 2020 |\n| {title} | 2021 |\n",
    ] {
        assert_eq!(one(EACH, body), Verdict::Violated, "{body}");
    }
    // A field about types holds type names.
    assert_eq!(
        one(
            "each parameter has: name, type",
            "- name: id, type: string\n- name: count, type: integer\n"
        ),
        Verdict::Satisfied
    );
}

/// A Markdown output holding, beside the list items or table rows
/// `each` reads, a JSON array or object (fenced or bare), whose elements
/// may be items, is the judge's.
#[test]
fn json_beside_markdown_items_leaves_the_clause_to_the_judge() {
    let j = r#"[{"title":"Daikin","year":2020},{"title":"Vaillant"}]"#;
    for body in [
        format!("- title: Daikin, year: 2020\n\n```json\n{j}\n```\n"),
        format!("| title | year |\n|---|---|\n| Daikin | 2020 |\n\n```json\n{j}\n```\n"),
        format!("| title | year |\n|---|---|\n| Daikin | 2020 |\n\n{j}\n"),
        format!("- title: Daikin, year: 2020\n\n{j}\n"),
        "- title: Daikin, year: 2020\n\n```\n{\"title\": \"Vaillant\"}\n```\n".to_string(),
        format!("- title: Daikin, year: 2020\n\n<pre>{j}</pre>\n"),
    ] {
        assert_eq!(one(EACH, &body), Verdict::NotEvaluable, "{body}");
    }
}

/// A Markdown output holding, beside the items `each` reads, HTML list
/// items or table rows, bullet-like lines or labelled lines outside any
/// list, which `each` does not read, is the judge's.
#[test]
fn html_or_typed_items_beside_markdown_items_leave_the_clause_to_the_judge() {
    let m = "- title: Daikin, year: 2020";
    for body in [
        format!("{m}\n\n<ul><li>title: Vaillant</li></ul>\n"),
        format!("{m}\n\n<ol>\n<li>title: Vaillant</li>\n</ol>\n"),
        "| title | year |\n|---|---|\n| Daikin | 2020 |\n\n<table><tr><th>title</th><th>year</th></tr><tr><td>Vaillant</td><td></td></tr></table>\n".to_string(),
        format!("{m}\n\n• title: Vaillant\n"),
        format!("{m}\n• title: Vaillant\n"),
        format!("{m}\n\n◦ title: Vaillant\n"),
        format!("{m}\n\n▪ title: Vaillant\n"),
        format!("{m}\n\ntitle: Vaillant\n"),
        format!("{m}\n\n**Title:** Vaillant\n"),
        format!("{m}<br>title: Vaillant\n"),
        format!("{m}\n\n-Vaillant\n"),
        format!("{m}\ntitle: Vaillant\n"),
        format!("{m}\n\n```\n- title: Vaillant\n```\n"),
        format!("{m}\n\nMore:\n\n    title: Vaillant\n"),
    ] {
        assert_eq!(one(EACH, &body), Verdict::NotEvaluable, "{body}");
    }
    // A list nested in an item is never taken as that item's fields.
    never_green(EACH, &format!("{m}\n  - title: Vaillant\n"));
    never_green(EACH, &format!("{m}\n  - year: 2021\n"));
    // A second item written as Markdown anywhere is read.
    for body in [
        format!("{m}\n\n> - title: Vaillant\n"),
        format!("{m}\n\n---\n\n1. title: Vaillant\n"),
    ] {
        assert_eq!(one(EACH, &body), Verdict::Violated, "{body}");
    }
    // Prose around the list that labels no field does not send it away.
    assert_eq!(
        one(
            EACH,
            &format!("Here are the makers:\n\n{m}\n- title: Vaillant, year: 2021\n\nBoth are German or Japanese.\n")
        ),
        Verdict::Satisfied
    );
    // Nor does a table's bold header.
    assert_eq!(
        one(
            EACH,
            "| **Title** | **Year** |\n|---|---|\n| Daikin | 2020 |\n| Vaillant | 2021 |\n"
        ),
        Verdict::Satisfied
    );
}
