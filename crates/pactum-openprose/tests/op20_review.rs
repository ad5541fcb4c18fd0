//! A twentieth review's findings: JSON wrapped in white space JSON does
//! not allow, items shown only in a footnote, a second declared error no
//! clause answers, a list format and a count met by different lists, and
//! a JSON key that is a field's name with something more.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";
const MAKERS: &str = r#"[{"name":"Daikin","url":"https://www.daikin.com/","year":1924},{"name":"Vaillant","url":"https://www.vaillant.de/","year":1874},{"name":"Bosch","url":"https://www.bosch.com/","year":1886}]"#;

/// JSON's white space is space, tab, line feed and carriage return (RFC
/// 8259 §2): any other around the value, and the output is no JSON.
#[test]
fn json_wrapped_in_other_white_space_is_no_json() {
    for ws in ["\u{a0}", "\u{2028}", "\u{3000}", "\u{c}", "\u{b}", "\u{85}"] {
        let out = format!("{ws}{MAKERS}{ws}\n");
        for clause in [
            "a JSON array of at least 3 items",
            "a JSON array; each maker has: name, url, year",
        ] {
            assert_ne!(
                one_at(clause, JSON, &out),
                Verdict::Satisfied,
                "{clause} over {ws:?}"
            );
        }
        let fenced = format!("```json\n{ws}{MAKERS}{ws}\n```\n");
        assert_ne!(
            one("a JSON array of at least 3 items", &fenced),
            Verdict::Satisfied,
            "fenced, {ws:?}"
        );
        let object = format!("{ws}{{\"makers\": {MAKERS}}}{ws}\n");
        assert_ne!(
            one_at("a JSON object; each maker has: name, url", JSON, &object),
            Verdict::Satisfied,
            "object, {ws:?}"
        );
    }
    // JSON's own white space around it is JSON still.
    for ws in [" ", "\t", "\n", "\r\n"] {
        let out = format!("{ws}{MAKERS}{ws}\n");
        assert_eq!(
            one_at("a JSON array; each maker has: name, url, year", JSON, &out),
            Verdict::Satisfied,
            "{ws:?}"
        );
    }
}

/// A footnote's content is shown at the end of the page, and not counted:
/// items and rows only there meet no lower bound.
#[test]
fn items_and_rows_in_a_footnote_are_not_counted() {
    let items = "Heat pump makers are listed in the note.[^1]\n\n[^1]: - Daikin heat pumps\n    - Bosch heat pumps\n    - Vaillant boilers\n";
    assert_ne!(one("at least 3 items", items), Verdict::Satisfied);
    let one_more = "- Daikin heat pumps for homes\n\nMore in the note.[^1]\n\n[^1]: - Bosch heat pumps\n    - Vaillant boilers\n";
    assert_ne!(one("at least 3 items", one_more), Verdict::Satisfied);
    let rows = "The makers are in the note.[^1]\n\n[^1]: | Maker | Country |\n    |---|---|\n    | Daikin | Japan |\n    | Bosch | Germany |\n    | Vaillant | Germany |\n";
    assert_ne!(one("at least 3 rows", rows), Verdict::Satisfied);
    // The body's own items are counted beside a footnote.
    let body = "- Daikin makes heat pumps in Japan\n- Bosch makes heat pumps in Germany\n- Vaillant makes boilers in Germany\n\nSee the note.[^1]\n\n[^1]: Figures from 2024.\n";
    assert_eq!(one("at least 3 items", body), Verdict::Satisfied);
}

/// A second error the contract declares, recorded beside one a
/// conditional clause answers, is answered by nothing: the ordinary
/// clause does not stand aside, and the contract does not pass.
#[test]
fn a_second_declared_error_no_clause_answers_is_not_dropped() {
    let contract = "## Ensures\n\n- `findings`: at least 3 sources\n- if search-failed: `findings` says \"no sources were found\"\n\n## Errors\n\n- search-failed: the search tool failed\n- quota-exceeded: the quota ran out";
    let log = "# run:r svc\nroot: root.prose.md\n1→ svc ✗ search-failed: timeout\n2→ svc ✗ quota-exceeded: out\n---end 2026-12-01T10:15:31Z\n";
    let d = run_with(
        contract,
        &[("bindings/svc/findings.md", "No sources were found.\n")],
    );
    write(d.path(), "vm.log.md", log);
    let g = grade_dir(d.path());
    let verdicts = by_text(&g);
    assert!(
        verdicts
            .iter()
            .any(|(t, v)| t.contains("at least 3 sources") && *v == Verdict::NotEvaluable),
        "{verdicts:?}"
    );
    assert!(
        g.contracts
            .iter()
            .all(|c| c.status != pactum_core::TestStatus::Pass),
        "{g:#?}"
    );
    // The same with the second error in the workspace.
    let d = run_with(
        contract,
        &[("bindings/svc/findings.md", "No sources were found.\n")],
    );
    write(
        d.path(),
        "vm.log.md",
        "# run:r svc\nroot: root.prose.md\n1→ svc ✗ search-failed: timeout\n---end 2026-12-01T10:15:31Z\n",
    );
    write(
        d.path(),
        "workspace/svc/__error.md",
        "# Error: quota-exceeded\n\nThe quota ran out.\n",
    );
    let g = grade_dir(d.path());
    assert!(
        g.contracts
            .iter()
            .all(|c| c.status != pactum_core::TestStatus::Pass),
        "{g:#?}"
    );
}

/// `a numbered list of at least 3 items` asks it of the numbered list:
/// over a numbered list of one item and a bulleted one of two, the count
/// of every list's items is no count of it.
#[test]
fn a_list_format_and_its_count_are_of_one_list() {
    for (clause, out) in [
        (
            "a numbered list of at least 3 items",
            "1. Daikin makes heat pumps\n\nOther makers:\n\n- Vaillant makes boilers\n- Bosch makes tools\n",
        ),
        (
            "a bulleted list of at least 3 items",
            "- Daikin makes heat pumps\n\nOther makers:\n\n1. Vaillant makes boilers\n2. Bosch makes tools\n",
        ),
        (
            "a numbered list with at least 3 items",
            "1. Daikin makes heat pumps\n\n## More\n\n1. Vaillant makes boilers\n2. Bosch makes tools\n",
        ),
        (
            "a numbered list of at least 3 items",
            "1. Daikin makes heat pumps\n\n> - Vaillant makes boilers\n> - Bosch makes tools\n",
        ),
        (
            "a markdown table with at least 3 rows",
            "| Maker | Country |\n|---|---|\n| Daikin | Japan |\n\nOthers:\n\n| Maker | Product | Year |\n|---|---|---|\n| Vaillant | boilers | 1874 |\n| Bosch | tools | 1886 |\n",
        ),
        (
            "a numbered list of at least 3 items",
            "<ol><li>Daikin makes heat pumps</li></ol>\n\n- Vaillant makes boilers\n- Bosch makes tools\n- Viessmann makes heat pumps\n",
        ),
    ] {
        assert_ne!(one(clause, out), Verdict::Satisfied, "{clause} over {out:?}");
    }
    // One list of that kind, long enough: satisfied.
    assert_eq!(
        one(
            "a numbered list of at least 3 items",
            "1. Daikin makes heat pumps\n2. Vaillant makes boilers\n3. Bosch makes tools\n"
        ),
        Verdict::Satisfied
    );
    assert_eq!(
        one(
            "a markdown table with at least 3 rows",
            "| Maker | Country |\n|---|---|\n| Daikin | Japan |\n| Vaillant | Germany |\n| Bosch | Germany |\n"
        ),
        Verdict::Satisfied
    );
}

/// A JSON key is read as a program reads it: `url` with anything more (a
/// control or invisible character, white space, a mark) is another key.
#[test]
fn a_json_key_with_more_than_the_fields_name_is_another_key() {
    for key in [
        "url\\u0000",
        "url\\u200b",
        "\\u200burl",
        "url\\u00ad",
        " url",
        "url ",
        "url\\t",
        "url\\n",
        "url:",
        "url.",
        "_url",
        "url_",
        "Url\\u0007",
    ] {
        let out = format!(
            r#"[{{"name":"Daikin","url":"https://www.daikin.com/"}},{{"name":"Bosch","{key}":"https://www.bosch.com/"}}]"#
        );
        assert_eq!(
            one_at("each maker has: name, url", JSON, &out),
            Verdict::Violated,
            "{key}"
        );
    }
    // The field's name in another case, or its words joined by `_`, `-`
    // or a space, is the field.
    let out = r#"[{"Name":"Daikin","source_url":"https://www.daikin.com/"},{"NAME":"Bosch","source-url":"https://www.bosch.com/"}]"#;
    assert_eq!(
        one_at("each maker has: name, source url", JSON, out),
        Verdict::Satisfied
    );
}

/// A comparison before a count (`exceeding 20 words`) is no exact count:
/// never read as "exactly 20", so never violated for 21 words.
#[test]
fn a_comparison_before_a_count_is_no_exact_count() {
    let words = |n: usize| {
        let w = [
            "heat", "pumps", "sold", "well", "in", "Germany", "during", "the", "cold", "winter",
        ];
        (0..n).map(|i| w[i % w.len()]).collect::<Vec<_>>().join(" ") + ".\n"
    };
    for (clause, n) in [
        ("exceeding 20 words", 21),
        ("not exceeding 20 words", 14),
        ("upwards of 20 words", 25),
        ("in excess of 20 words", 25),
        ("beyond 20 words", 25),
    ] {
        let (v, why) = one_why_at(clause, "bindings/svc/summary.md", &words(n));
        assert_ne!(v, Verdict::Violated, "{clause} over {n} words: {why}");
        assert!(!why.contains("exactly 20"), "{clause}: {why}");
    }
}
