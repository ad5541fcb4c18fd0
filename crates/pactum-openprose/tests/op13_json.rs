//! JSON outputs read in one place: a measure reads the decoded string
//! values of a JSON output, and leaves to the judge what looks like JSON
//! but is not one strict value.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";
const MD: &str = "bindings/svc/summary.md";

/// The verdict of `clause` over `body` written as `.json` and as `.md`.
fn both(clause: &str, body: &str) -> [Verdict; 2] {
    [one_at(clause, JSON, body), one_at(clause, MD, body)]
}

/// `clause` over `body` (both extensions) is never satisfied.
fn never_met(clause: &str, body: &str) {
    for v in both(clause, body) {
        assert_ne!(v, Verdict::Satisfied, "{clause:?} over {body:?}");
    }
}

/// `clause` over `body` (both extensions) goes to the judge: neither
/// satisfied nor violated.
fn judged(clause: &str, body: &str) {
    for v in both(clause, body) {
        assert!(
            !matches!(v, Verdict::Satisfied | Verdict::Violated),
            "{clause:?} over {body:?}: {v:?}"
        );
    }
}

/// Several JSON values, one per line or parted by commas (strings,
/// numbers, booleans too), are several entries: a count over them is the
/// judge's, never met over the zero list items Markdown shows.
#[test]
fn several_json_values_are_never_counted_as_none() {
    for body in [
        "\"Daikin\"\n\"Vaillant\"\n\"Viessmann\"\n",
        "\"Daikin\", \"Vaillant\", \"Viessmann\"\n",
        "1\n2\n3\n",
        "true\nfalse\ntrue\n",
        "{\"title\":\"Daikin\"}\n{\"title\":\"Vaillant\"}\n{\"title\":\"Viessmann\"}\n",
    ] {
        for clause in ["at most 2 items", "at most 2 entries", "exactly 3 items"] {
            judged(clause, body);
        }
    }
}

/// A bracketed, comma-parted sequence that is no strict JSON (a Python
/// list, a YAML flow sequence, a tuple, a trailing comma) holds entries
/// Markdown does not show as items: a bound on them is the judge's.
#[test]
fn a_bracketed_sequence_that_is_no_json_is_never_counted_as_none() {
    for body in [
        "['Daikin', 'Vaillant', 'Viessmann']\n",
        "[Daikin, Vaillant, Viessmann]\n",
        "(\"Daikin\", \"Vaillant\", \"Viessmann\")\n",
        "[\"Daikin\", \"Vaillant\", \"Viessmann\",]\n",
    ] {
        for clause in ["at most 2 items", "at most 2 entries"] {
            judged(clause, body);
        }
    }
    never_met(
        "at most 2 sources",
        "['https://www.daikin.com/', 'https://www.vaillant.de/', 'https://www.viessmann.de/']\n",
    );
}

/// A string value holding a Markdown table or headings may render as
/// them: a bound on rows or headings, and `no table` / `without
/// headings`, are the judge's.
#[test]
fn markdown_inside_a_json_string_leaves_rows_and_headings_to_the_judge() {
    let table = r#"{"markdown":"| maker |\n|---|\n| Daikin |\n| Vaillant |\n| Viessmann |"}"#;
    let headings =
        r##"{"markdown":"# Daikin\n\ntext\n\n# Vaillant\n\ntext\n\n# Viessmann\n\ntext"}"##;
    for (clause, body) in [
        ("at most 1 rows", table),
        ("exactly 1 rows", table),
        ("no table", table),
        ("at most 1 headings", headings),
        ("at most 1 sections", headings),
        ("without headings", headings),
    ] {
        judged(clause, body);
    }
}

/// A JSON output whose every string value is a placeholder (a slot in
/// brackets, its own key, a type name) renders nothing: not produced.
#[test]
fn a_json_output_of_placeholders_is_not_produced() {
    for body in [
        r#"{"summary":"(blank)"}"#,
        r#""(blank)""#,
        r#"["(blank)"]"#,
        r#"{"summary":"(empty)"}"#,
        r#"{"summary":"[Summary]"}"#,
        r#"{"summary":"summary"}"#,
        r#"{"summary":"Summary"}"#,
        r#"{"summary":"string"}"#,
        r#"{"summary":"<string>"}"#,
        r#"{"summary":"TBD"}"#,
    ] {
        assert_eq!(one_at("a summary", JSON, body), Verdict::Violated, "{body}");
    }
}

/// Placeholder strings beside numbers or booleans: whether those are
/// the output asked for is the judge's, never a green.
#[test]
fn placeholder_strings_beside_numbers_are_the_judges() {
    for body in [
        r#"{"summary":"...","n":0}"#,
        r#"{"summary":"(blank)","year":2024}"#,
        r#"{"title":"Title","done":true}"#,
    ] {
        let v = one_at("a summary", JSON, body);
        assert!(
            !matches!(v, Verdict::Satisfied | Verdict::Violated),
            "{body}: {v:?}"
        );
    }
}

/// JSON escapes are read decoded: `https:\/\/…` and `\u0068ttps://…`
/// are the pages every reader of the JSON opens.
#[test]
fn escaped_urls_in_json_are_sources() {
    for body in [
        r#"{"a":"https:\/\/www.daikin.com\/","b":"https:\/\/www.vaillant.de\/","c":"https:\/\/www.viessmann.de\/"}"#,
        r#"{"a":"\u0068ttps://www.daikin.com/","b":"\u0068ttps://www.vaillant.de/","c":"\u0068ttps://www.viessmann.de/"}"#,
        r#"["https:\/\/www.daikin.com\/","https:\/\/www.vaillant.de\/","https:\/\/www.viessmann.de\/"]"#,
        r#"{"a":"https://www.daikin.com/","b":"https://www.vaillant.de/","c":"https://www.viessmann.de/"}"#,
    ] {
        for v in both("at most 2 sources", body) {
            assert_eq!(v, Verdict::Violated, "{body}");
        }
        assert_eq!(
            one_at("at least 3 sources", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
}

const INPUT: &str =
    "Solid-state batteries promise higher energy density and better safety for electric vehicles";

/// `clause` over `body` as `summary.json`, the caller's input [`INPUT`].
fn over_input(clause: &str, body: &str) -> Verdict {
    let d = run_with(
        &format!("## Ensures\n\n- `summary`: {clause}\n"),
        &[
            (
                "bindings/caller/topic.md",
                &format!("# topic\nbinding: input\nsource: caller\n---\n{INPUT}\n"),
            ),
            (JSON, body),
        ],
    );
    let g = grade_dir(d.path());
    let v = by_text(&g);
    assert_eq!(v.len(), 1, "{g:#?}");
    v[0].1
}

/// A JSON output whose decoded string values only copy the input (keys,
/// numbers, booleans and `null` aside) is a copy: no output of its own.
#[test]
fn a_json_copy_of_the_input_is_a_copy() {
    for body in [
        format!(r#"{{"summary":"{}"}}"#, INPUT.replace('-', "\\u002d")),
        format!(r#"{{"input":{{"topic":"{INPUT}"}},"output":null}}"#),
        format!(r#""{INPUT}""#),
    ] {
        assert_eq!(
            over_input("at most 50 words", &body),
            Verdict::Violated,
            "{body}"
        );
    }
    // A metadata string, a number or a boolean beside the copy (a score
    // may be the answer): the judge's, never a green.
    for body in [
        format!(r#"{{"summary":"{INPUT}","status":"ok"}}"#),
        format!(r#"{{"summary":"{INPUT}","year":2024}}"#),
        format!(
            r#"{{"summary":"{}","done":true}}"#,
            INPUT.replace('-', "\\u002d")
        ),
    ] {
        let v = over_input("at most 50 words", &body);
        assert!(
            !matches!(v, Verdict::Satisfied | Verdict::Violated),
            "{body}: {v:?}"
        );
    }
    // Text of its own is still the service's output.
    let own = r#"{"summary":"Sulfide electrolytes lead; oxide cells trail on cost."}"#;
    assert_eq!(over_input("at most 50 words", own), Verdict::NotEvaluable);
}

/// A quote found only in a JSON key is not said: a key names a field,
/// and its value may deny it.
#[test]
fn a_quote_found_only_in_a_json_key_is_not_said() {
    for body in [
        r#"{"no sources were found": false, "sources": ["https://www.daikin.com/"]}"#,
        r#"{"checks": {"no sources were found": false, "rate limited": false}}"#,
        r#"{"no sources were found": null}"#,
        r#"{"no sources were found": "yes"}"#,
    ] {
        never_met("saying \"no sources were found\"", body);
    }
    let d = degraded("# Error: search-failed\n");
    write(
        d.path(),
        "bindings/svc/out.md",
        "{\"no sources were found\": false}\n",
    );
    let g = grade_dir(d.path());
    for (text, v) in by_text(&g) {
        if text.contains("says") {
            assert_ne!(v, Verdict::Satisfied, "{g:#?}");
        }
    }
    // Said in a value, it is said.
    assert_eq!(
        one_at(
            "saying \"no sources were found\"",
            JSON,
            r#"{"note": "No sources were found for this topic."}"#
        ),
        Verdict::NotEvaluable
    );
}

/// A JSON output with a repeated key: every parser keeps the last value,
/// so a measure met by the discarded one is the judge's.
#[test]
fn a_repeated_json_key_leaves_the_measure_to_the_judge() {
    for (clause, body) in [
        ("saying \"Daikin\"", r#"{"partner":"Daikin","partner":""}"#),
        (
            "at least 3 sources",
            r#"{"s":"https://www.daikin.com/ https://www.vaillant.de/ https://www.viessmann.de/","s":""}"#,
        ),
        (
            "at least 20 words",
            r#"{"summary":"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty","summary":"short"}"#,
        ),
        (
            "a summary",
            r#"{"summary":"Daikin leads.","summary":"TBD"}"#,
        ),
    ] {
        for v in both(clause, body) {
            assert_ne!(v, Verdict::Satisfied, "{clause:?} over {body}");
        }
    }
    // Refused as JSON, as before.
    assert_eq!(
        one_at(
            "a JSON object saying \"Daikin\"",
            JSON,
            r#"{"partner":"Daikin","partner":""}"#
        ),
        Verdict::Violated
    );
}

/// Controls: strict JSON is still measured as before.
#[test]
fn strict_json_is_still_measured() {
    for v in both("at most 2 items", r#"["oak","pine","elm"]"#) {
        assert_eq!(v, Verdict::Violated);
    }
    for (clause, body) in [
        (
            "at least 3 words",
            r#"{"summary":"Daikin leads the heat pump market."}"#,
        ),
        (
            "saying \"Daikin\"",
            r#"{"summary":"Daikin leads the heat pump market."}"#,
        ),
        ("at most 2 items", r#"["Daikin","Vaillant"]"#),
        (
            "a JSON object",
            r#"{"summary":"Daikin leads the heat pump market."}"#,
        ),
        (
            "no table",
            r#"{"summary":"Daikin leads the heat pump market."}"#,
        ),
        (
            "at most 1 headings",
            r#"{"summary":"Daikin leads the heat pump market."}"#,
        ),
        (
            "a summary",
            r#"{"summary":"Daikin leads the heat pump market."}"#,
        ),
    ] {
        assert_eq!(one_at(clause, JSON, body), kept(clause), "{clause:?}");
    }
    // A Markdown output opening with a link, or a bracketed word, is text.
    assert_eq!(
        one_at(
            "at most 2 items",
            MD,
            "[Daikin](https://www.daikin.com/) leads, then Vaillant.\n"
        ),
        Verdict::NotEvaluable
    );
}

/// Values in sequence on a line of a Markdown output, or a near-JSON
/// sequence in a fenced block, are entries the list count does not see:
/// an upper bound on items over them is the judge's.
#[test]
fn values_in_sequence_inside_markdown_never_meet_an_upper_bound() {
    for body in [
        "Makers:\n\n['Daikin', 'Vaillant', 'Viessmann']\n",
        "Makers:\n\n[Daikin, Vaillant, Viessmann]\n",
        "Makers:\n\n\"Daikin\", \"Vaillant\", \"Viessmann\"\n",
        "Makers:\n\n(\"Daikin\", \"Vaillant\", \"Viessmann\")\n",
        "Makers:\n\n```python\n['Daikin', 'Vaillant', 'Viessmann']\n```\n",
        "Makers:\n\n```\n\"Daikin\"\n\"Vaillant\"\n\"Viessmann\"\n```\n",
    ] {
        never_met("at most 2 items", body);
    }
    // A parenthetical remark is no sequence.
    assert_eq!(
        one_at(
            "at most 2 items",
            MD,
            "- Daikin\n\n(Vaillant and Viessmann, later.)\n"
        ),
        Verdict::NotEvaluable
    );
}

/// Sources in a JSON array are its elements' string values: a URL only
/// in a key meets no lower bound.
#[test]
fn a_url_only_in_a_json_key_is_no_source_for_a_lower_bound() {
    let body = r#"[{"https://www.daikin.com/":"Daikin"},{"https://www.vaillant.de/":"Vaillant"},{"https://www.viessmann.de/":"Viessmann"}]"#;
    assert_ne!(one_at("at least 3 sources", JSON, body), Verdict::Satisfied);
    assert_ne!(one_at("at most 2 sources", JSON, body), Verdict::Satisfied);
}

/// A `.json` binding that holds no strict JSON value is not what its
/// consumers read: a measure held over its text is the judge's.
#[test]
fn a_json_binding_that_is_no_json_is_the_judges() {
    for body in ["Daikin\nVaillant\nViessmann\n", "- Daikin\n", "[Summary]\n"] {
        assert_ne!(
            one_at("at most 2 items", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
    assert_eq!(
        one_at("at most 2 items", MD, "- Daikin\n"),
        Verdict::NotEvaluable
    );
}

/// A fenced block of near-JSON beside prose (a repeated key, several
/// values) holds what pactum does not decode: a measure held over the
/// output is the judge's.
#[test]
fn near_json_in_a_fence_beside_prose_is_the_judges() {
    let repeated =
        "Here is the result:\n\n```json\n{\"partner\":\"Daikin\",\"partner\":\"\"}\n```\n";
    never_met("saying \"Daikin\"", repeated);
    never_met("a summary", repeated);
    let lines = "The makers:\n\n```\n\"Daikin\"\n\"Vaillant\"\n\"Viessmann\"\n```\n";
    never_met("at most 2 items", lines);
}
