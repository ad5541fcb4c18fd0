//! Outputs that stand where content should be, in more forms: a
//! program's slot in any printf or positional syntax, a failure written
//! into the output, a one-word output, a data file, placeholder links
//! with a running number, index-only headings, letter-numbered words,
//! twice-encoded JSON and words only an image or a title carries.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";

#[test]
fn slots_and_failures_are_no_output() {
    for out in [
        "%1$s",
        "%v",
        "$1",
        "response.choices[0].message.content",
        "Optional[str]",
        "Ellipsis",
        "placeholder text",
        "xxxxx",
        "HTTP 429 Too Many Requests",
        "Rate limit reached for gpt-4o in organization org-x on tokens per min.",
        "context_length_exceeded",
        "Request failed with status code 500",
        "Summary generation failed: timeout",
        "Internal Server Error",
        "Segmentation fault (core dumped)",
        "Killed",
        "Timed out after 30s",
    ] {
        never_green("a summary", &format!("{out}\n"));
    }
    for body in [
        r#"{"status": 500, "message": "Internal Server Error"}"#,
        r#"{"error_code": 429, "msg": "Too Many Requests"}"#,
        r#"{"detail": "Not Found"}"#,
    ] {
        assert_ne!(
            one_at("a summary", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
    for out in [
        "- %1$s\n- %2$s\n- %3$s\n",
        "- $1\n- $2\n- $3\n",
        "- %v\n- %q\n- %T\n",
    ] {
        never_green("at least 3 items", out);
    }
    assert_eq!(
        one("a summary", "Heat pump sales rose in 2024.\n"),
        kept("a summary")
    );
}

#[test]
fn numbered_placeholder_links_are_no_sources() {
    for out in [
        "- [a](https://source1.com)\n- [b](https://source2.com)\n- [c](https://source3.com)\n",
        "- [a](https://url1.com)\n- [b](https://url2.com)\n- [c](https://url3.com)\n",
        "- [a](https://www.daikin.com/path/to/page)\n- [b](https://www.daikin.com/path/to/other)\n- [c](https://www.daikin.com/path/to/third)\n",
        "- [a](https://www.daikin.com/insert-link-here)\n- [b](https://www.daikin.com/your-page)\n- [c](https://www.daikin.com/link)\n",
        "- [a](https://www.daikin.com/page1)\n- [b](https://www.daikin.com/page2)\n- [c](https://www.daikin.com/page3)\n",
    ] {
        never_green("at least 3 sources", out);
    }
}

#[test]
fn index_headings_letter_numbered_words_and_data_files_are_the_judges() {
    for out in [
        "# 1\n\n# 2\n\n# 3\n",
        "# A\n\n# B\n\n# C\n",
        "# I\n\n# II\n\n# III\n",
    ] {
        never_green("at least 3 headings", out);
    }
    for out in [
        "# H1\n\nBattery costs fell.\n",
        "# Title\n\nBattery costs fell.\n",
    ] {
        never_green("a markdown report with headings", out);
    }
    never_green(
        "at least 20 words",
        "worda wordb wordc wordd worde wordf wordg wordh wordi wordj wordk wordl wordm wordn wordo wordp wordq wordr words wordt\n",
    );
    for (path, body) in [
        (
            "bindings/svc/summary.yaml",
            "summary: Short.\n# Solid state batteries replace the liquid electrolyte with a solid one which may raise energy density in cars\n",
        ),
        (
            "bindings/svc/summary.toml",
            "summary = \"Short.\"\n# Solid state batteries replace the liquid electrolyte with a solid one which may raise energy density in cars\n",
        ),
    ] {
        assert_ne!(one_at("at least 20 words", path, body), Verdict::Satisfied, "{path}");
    }
    assert_ne!(
        one_at(
            "at least 20 words",
            JSON,
            r#"{"summary":"{\"summary\":\"Short.\",\"comment\":\"Solid state batteries replace the liquid electrolyte with a solid one which may raise energy density in electric cars\"}"}"#
        ),
        Verdict::Satisfied
    );
    never_green(
        "at most 5 words",
        "Short text here. ![Solid state batteries replace the liquid electrolyte with a solid one which may raise energy density](x.png)\n",
    );
    never_green(
        "at most 5 words",
        "Short text here. [more](https://a.org \"Solid state batteries replace the liquid electrolyte with a solid one\")\n",
    );
    assert_eq!(
        one("at most 5 words", "Short text here.\n"),
        Verdict::NotEvaluable
    );
}

#[test]
fn json_items_told_apart_by_an_id_index_rows_and_json_in_code() {
    for body in [
        r#"[{"id":1,"name":"Daikin"},{"id":2,"name":"Daikin"},{"id":3,"name":"Daikin"}]"#,
        r#"[{"name":"Daikin"},{"name":"Daikin","note":"again"},{"name":"Daikin","note":"dup"}]"#,
        r#"[{"name":"Daikin"},{"name":null,"x":1},{"name":null,"x":2}]"#,
    ] {
        assert_ne!(
            one_at("at least 3 items", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
    assert_eq!(
        one_at(
            "at least 3 items",
            JSON,
            r#"[{"id":1,"name":"Daikin"},{"id":2,"name":"Vaillant"},{"id":3,"name":"Bosch"}]"#
        ),
        Verdict::Satisfied
    );
    never_green(
        "a table with at least 3 rows",
        "| # | maker |\n|---|---|\n| 1 | Daikin |\n| 2 | |\n| 3 | |\n",
    );
    for out in [
        "`{\"a\":1}`\n",
        "<pre>{\"a\":1}</pre>\n",
        "<code>[1, 2]</code>\n",
    ] {
        never_green("not JSON", out);
    }
    assert_eq!(
        one("not JSON", "Heat pumps sold well.\n"),
        Verdict::NotEvaluable
    );
}

/// Failures and blocks in more words, a lead-in or a pointer alone, and
/// template words, are no content.
#[test]
fn failures_pointers_and_template_words_are_no_content() {
    for out in [
        "Connection refused",
        "Out of memory",
        "Process exited with code 1.",
        "Model is overloaded, try again later.",
        "The model produced no output.",
        "No data.",
        "Response blocked by safety filters.",
        "Cancelled by user.",
        "Here is the summary:",
        "The summary is below.",
        "Summary written to summary.md.",
        "Generating summary...",
        "Summary here.",
        "Dummy text.",
        "Sample output.",
        "Hello world",
    ] {
        never_green("a summary", &format!("{out}\n"));
    }
    never_green(
        "a markdown table",
        "| Name | Year |\n|---|---|\n| Sample | Data |\n",
    );
    never_green(
        "a markdown table",
        "| Name | Year |\n|---|---|\n| Name here | Year here |\n",
    );
    for heading in [
        "# My heading",
        "# Sample heading",
        "# Main heading",
        "# Document title",
    ] {
        never_green(
            "a markdown report with headings",
            &format!("{heading}\n\nBattery costs fell sharply in 2024.\n"),
        );
    }
    // A lead-in followed by the output is content.
    assert_eq!(
        one(
            "a summary",
            "Here is the summary:\n\nHeat pump sales rose in 2024 as subsidies grew.\n"
        ),
        kept("a summary")
    );
}

/// Repeats marked by a word, JSON scaffolding beside real items, a
/// sentence repeated and filler words meet no lower bound.
#[test]
fn repeats_scaffolding_and_filler_meet_no_lower_bound() {
    for out in [
        "- Daikin\n- Daikin again\n- Daikin (ditto)\n",
        "- Daikin\n- Daikin cont.\n- Daikin, repeated\n",
    ] {
        never_green("at least 3 items", out);
    }
    for body in [
        r#"["Daikin","Vaillant","Item 3"]"#,
        r#"["Daikin","Vaillant","[name]"]"#,
        r#"["Daikin","Vaillant","etc."]"#,
        r#"[{"name":"Daikin"},{"name":"Vaillant"},{"name":"Item 3"}]"#,
        r#"["Daikin","Daikin (again)","Daikin (dup)"]"#,
    ] {
        assert_ne!(
            one_at("at least 3 items", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
    assert_eq!(
        one_at("at least 3 items", JSON, r#"["Daikin","Vaillant","Bosch"]"#),
        Verdict::Satisfied
    );
    let sentence = "Heat pump sales in Europe rose again in the year 2024.";
    never_green(
        "at least 40 words",
        &format!("{sentence} {sentence} {sentence} {sentence}\n"),
    );
    for out in [
        "one two three four five six seven eight nine ten eleven twelve one two three four five six seven eight\n",
        "Bla bla bla yada yada yada blah blah blah etc etc etc and so on and so forth et cetera et cetera\n",
    ] {
        never_green("at least 20 words", out);
    }
    assert_eq!(
        one(
            "at least 20 words",
            "Heat pump sales in Europe fell in 2024 after two record years, as subsidies were cut in several large markets and gas prices eased.\n"
        ),
        Verdict::Satisfied
    );
}

/// A placeholder in a link's query or fragment, or a path of one letter
/// repeated, makes no page.
#[test]
fn placeholder_queries_and_fragments_are_no_sources() {
    for tail in ["?id={id}", "?ref=TODO", "?url=URL", "#TODO", "XXXX"] {
        let out = format!(
            "- [a](https://www.daikin.com/{tail})\n- [b](https://www.vaillant.de/{tail})\n- [c](https://www.bosch.de/{tail})\n"
        );
        never_green("at least 3 sources", &out);
    }
    assert_eq!(
        one(
            "at least 3 sources",
            "- [a](https://www.daikin.com/p?id=3)\n- [b](https://www.vaillant.de/x#specs)\n- [c](https://www.bosch.de/y?lang=de)\n"
        ),
        Verdict::Satisfied
    );
}
