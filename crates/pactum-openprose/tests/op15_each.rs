//! `each X has: a, b, c` fails closed: a field is filled only by a value
//! pactum recognises as one (a link's destination that is a page, a
//! plausible year, a value that is not the field's own name numbered),
//! and an item's string holding another item in any form leaves the
//! clause to the judge. Each test here failed before its fix.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";
const EACH: &str = "each item has: title, year";
const SOURCES: &str = "each source has: title, url";

fn json(clause: &str, body: &str) -> Verdict {
    one_at(clause, JSON, body)
}

/// A `url` field is filled by where a link leads, not by its text: a
/// real URL written as the text of a link to no page, a URL only in a
/// code span, or one the item marks dead, fills no field.
#[test]
fn a_url_field_is_filled_by_a_links_destination_only() {
    for dest in [
        "https://URL",
        "#",
        "/docs",
        "https://example.com/x",
        "mailto:a@b.de",
        "javascript:void(0)",
        "https://localhost/x",
    ] {
        let body = format!(
            "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: [https://www.vaillant.de/]({dest})\n"
        );
        assert_eq!(one(SOURCES, &body), Verdict::Violated, "{dest}");
    }
    assert_eq!(
        one(
            SOURCES,
            "| title | url |\n|---|---|\n| Daikin | https://www.daikin.com/ |\n| Vaillant | [https://www.vaillant.de/](#) |\n"
        ),
        Verdict::Violated
    );
    for body in [
        "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: `https://www.vaillant.de/`\n",
        "| title | url |\n|---|---|\n| Daikin | https://www.daikin.com/ |\n| Vaillant | `https://www.vaillant.de/` |\n",
        "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: https://www.vaillant.de/ (dead link)\n",
        "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: https://www.vaillant.de/ (404)\n",
        "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: https://www.vaillant.de/ broken\n",
        "| title | url |\n|---|---|\n| Daikin | https://www.daikin.com/ |\n| Vaillant | https://www.vaillant.de/ (404) |\n",
        "- [Daikin](https://www.daikin.com/), title: Daikin\n- [Vaillant](https://www.vaillant.de/) (dead link), title: Vaillant\n",
    ] {
        never_green(SOURCES, body);
    }
    for v in [
        r#""https://www.vaillant.de/ (dead link)""#,
        r#""https://www.vaillant.de/ (404)""#,
        r#""`https://www.vaillant.de/`""#,
        r#""[https://www.vaillant.de/](https://URL)""#,
    ] {
        let body = format!(
            r#"[{{"title":"Daikin","url":"https://www.daikin.com/"}},{{"title":"Vaillant","url":{v}}}]"#
        );
        assert_ne!(json(SOURCES, &body), Verdict::Satisfied, "{v}");
    }
    // Links to pages, bare URLs and autolinks fill the field as ever.
    for body in [
        "- title: Daikin, url: https://www.daikin.com/\n- title: Vaillant, url: [Vaillant](https://www.vaillant.de/)\n",
        "- title: Daikin, url: <https://www.daikin.com/>\n- title: Vaillant, url: [https://www.vaillant.de/](https://www.vaillant.de/)\n",
        "| title | url |\n|---|---|\n| Daikin | https://www.daikin.com/ |\n| Vaillant | [vaillant.de](https://www.vaillant.de/heat-pumps) |\n",
    ] {
        assert_eq!(one(SOURCES, body), Verdict::Satisfied, "{body}");
    }
    for body in [
        r#"[{"title":"Daikin","url":"https://www.daikin.com/"},{"title":"Vaillant","url":"https://www.vaillant.de/heat-pumps?x=1"}]"#,
        r#"[{"title":"Daikin","url":"https://www.daikin.com/title/1"},{"title":"Vaillant","url":"https://www.vaillant.de/a,b"}]"#,
    ] {
        assert_eq!(json(SOURCES, body), Verdict::Satisfied, "{body}");
    }
}

/// A year is a value only when it is a plausible year or a date; any
/// field's value holding a doubt mark, a note, a slash abbreviation or a
/// word or two of its own in lower case, and a JSON boolean, are the
/// judge's.
#[test]
fn a_value_not_recognisably_one_is_the_judges() {
    for v in [
        r#""idk""#,
        r#""n/k""#,
        r#""nope""#,
        r#""dunno""#,
        r#""20??""#,
        r#""2020?""#,
        r#""2020 (unverified)""#,
        r#""to follow""#,
        r#""later""#,
        r#""ask supplier""#,
        r#""see notes""#,
        r#""confidential""#,
        r#""the year""#,
        r#""0""#,
        "0",
        "-1",
        "true",
        "false",
        r#""unconfirmed""#,
        r#""disputed""#,
        r#""tentative""#,
        r#""dummy""#,
        r#""fake""#,
        r#""made up""#,
        r#""example""#,
        r#""sample""#,
        r#""2021 (placeholder)""#,
        r#""1999 (dummy)""#,
        r#""2021 [citation needed]""#,
        r#""TK""#,
        r#""XX""#,
        r#""s.d.""#,
        r#""o.J.""#,
        r#""k.A.""#,
        r#""unbekannt""#,
        r#""inconnu""#,
        r#""desconocido""#,
        r#""不明""#,
        r#""guess: 2020""#,
        r#""¯\\_(ツ)_/¯""#,
        "20.5",
        "12",
    ] {
        let body =
            format!(r#"[{{"title":"Daikin","year":2020}},{{"title":"Vaillant","year":{v}}}]"#);
        assert_ne!(json(EACH, &body), Verdict::Satisfied, "{v}");
    }
    for v in [
        "idk",
        "n/k",
        "dunno",
        "20??",
        "2020?",
        "to follow",
        "see notes",
        "¯\\\\_(ツ)\\_/¯",
        "hmm",
        "guess: 2020",
    ] {
        never_green(
            EACH,
            &format!("| title | year |\n|---|---|\n| Daikin | 2020 |\n| Vaillant | {v} |\n"),
        );
    }
    never_green(
        EACH,
        "- title: Daikin, year: 2020\n- title: Vaillant, year: idk\n",
    );
    never_green(
        "each book has: title, published",
        "- title: Daikin, published: 2020\n- title: Vaillant, published: yes\n",
    );
    // Any field: a doubt mark, a note, an abbreviation, a lone word of
    // its own in lower case.
    for t in [
        r#""idk""#,
        r#""hmm""#,
        r#""later""#,
        r#""to follow""#,
        r#""Vaillant?""#,
        r#""Vaillant (unverified)""#,
        r#""Vaillant [citation needed]""#,
        r#""n/k""#,
        "true",
    ] {
        let body = format!(r#"[{{"title":"Daikin","year":2020}},{{"title":{t},"year":2021}}]"#);
        assert_ne!(json(EACH, &body), Verdict::Satisfied, "{t}");
    }
    never_green(
        EACH,
        "| title | year |\n|---|---|\n| Daikin | 2020 |\n| hmm | 2021 |\n",
    );
    // Real values stay green: names, titles, years as numbers or
    // strings, dates, a lower-case value the output shows elsewhere.
    for body in [
        r#"[{"title":"Daikin","year":2020},{"title":"The Heat Pump Handbook","year":"2021"}]"#,
        r#"[{"title":"Daikin","year":1924},{"title":"Vaillant","year":"2021-05-03"}]"#,
        r#"[{"title":"Daikin","year":2020.0},{"title":"Vaillant","year":"May 2021"}]"#,
    ] {
        assert_eq!(json(EACH, body), Verdict::Satisfied, "{body}");
    }
    assert_eq!(
        json(
            "each book has: title, published_date, founded",
            r#"[{"title":"Daikin","published_date":"3 May 2021","founded":1924},{"title":"Vaillant","published_date":"2021-05-03T10:00:00Z","founded":"1874"}]"#
        ),
        Verdict::Satisfied
    );
    // A field every item writes in lower case (roles, codes) is read.
    assert_eq!(
        json(
            "each person has: name, role",
            r#"[{"name": "Ada", "role": "lead"}, {"name": "Alan", "role": "review"}]"#
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one(
            "each parameter has: name, type",
            "- name: id, type: string\n- name: count, type: integer\n"
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        json(
            "each pump has: maker, kind",
            r#"[{"maker":"Daikin","kind":"air"},{"maker":"Bosch","kind":"air"}]"#
        ),
        Verdict::Satisfied
    );
    for body in [
        "| title | year |\n|---|---|\n| Daikin | 2020 |\n| Vaillant | 2021 |\n",
        "- title: Daikin, year: 2020\n- title: The Heat Pump Handbook, year: 2021\n",
        "- **title**: Daikin; **year**: 2020-05-03\n- **title**: Vaillant; **year**: 1874\n",
        "- title: Daikin, year: 2020.\n- title: Vaillant, year: 1874.\n",
    ] {
        assert_eq!(one(EACH, body), Verdict::Satisfied, "{body}");
    }
}

/// A string of a JSON item (or one beside the array of items) holding
/// another item as HTML, bullets, lines, an enumeration, a CSV row, a
/// label written with `=`, `->`, `—` or a tab, or a field's name, leaves
/// the clause to the judge.
#[test]
fn an_item_string_holding_an_item_in_any_form_is_the_judges() {
    for n in [
        r#""<ul><li>Vaillant</li><li>Bosch</li></ul>""#,
        r#""• Vaillant\n• Bosch""#,
        r#""• Vaillant • Bosch""#,
        r#""Vaillant\nBosch\nViessmann""#,
        r#""a) Vaillant b) Bosch""#,
        r#""Title=Vaillant""#,
        r#""title = Vaillant""#,
        r#""title -> Vaillant""#,
        r#""Title — Vaillant""#,
        r#""title\tVaillant""#,
        r#""Vaillant,2021\nBosch,""#,
        r#""Vaillant,2021""#,
        r#""maker=Vaillant""#,
        r#""Vaillant (year 2021)""#,
    ] {
        let body = format!(r#"[{{"title":"Daikin","year":2020,"notes":{n}}}]"#);
        assert_eq!(json(EACH, &body), Verdict::NotEvaluable, "{n}");
    }
    for also in [
        r#""Vaillant, Bosch""#,
        r#""• Vaillant\n• Bosch""#,
        r#""<li>Vaillant</li>""#,
        r#""Vaillant\nBosch""#,
        r#""title = Vaillant""#,
    ] {
        let body = format!(r#"{{"items":[{{"title":"Daikin","year":2020}}],"also":{also}}}"#);
        assert_eq!(json(EACH, &body), Verdict::NotEvaluable, "{also}");
    }
    // Prose notes, and a count or status beside the array, stay read.
    for body in [
        r#"[{"title":"Daikin","year":2020,"notes":"Market leader in Japan, founded in Osaka."}]"#,
        r#"[{"title":"Daikin","year":2020,"notes":"Makes air-to-water heat pumps."}]"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"count":1,"status":"ok"}"#,
        r#"{"items":[{"title":"Daikin","year":2020}],"summary":"One maker found."}"#,
    ] {
        assert_eq!(json(EACH, body), Verdict::Satisfied, "{body}");
    }
}

/// A value that is the field's own name numbered, lettered or with a
/// template word, or numbered scaffolding, is absent.
#[test]
fn a_value_naming_its_field_numbered_or_templated_is_absent() {
    for v in [
        "Title 1",
        "title1",
        "TITLE_1",
        "Title A",
        "Untitled 2",
        "The title",
        "A title",
        "Some title",
        "Title here",
        "My Title",
        "Sample Title",
        "Example Title",
        "Item 1",
        "Book title",
        "title-2",
        "Title #3",
    ] {
        let body = format!(r#"[{{"title":"Daikin","year":2020}},{{"title":"{v}","year":2021}}]"#);
        assert_eq!(json(EACH, &body), Verdict::Violated, "{v}");
    }
    for body in [
        "| title | year |\n|---|---|\n| Daikin | 2020 |\n| Title 1 | 2021 |\n",
        "- title: Daikin, year: 2020\n- title: Title 1, year: 2021\n",
        "- title: Daikin, year: 2020\n- title: Item 2, year: 2021\n",
    ] {
        assert_eq!(one(EACH, body), Verdict::Violated, "{body}");
    }
    // Titles that merely hold a word like the field's are real.
    for t in [
        "The Heat Pump Handbook",
        "Title Deeds of Old Osaka",
        "Daikin 2",
        "A Daikin Story",
    ] {
        let body = format!(r#"[{{"title":"Daikin","year":2020}},{{"title":"{t}","year":2021}}]"#);
        assert_eq!(json(EACH, &body), Verdict::Satisfied, "{t}");
    }
}
