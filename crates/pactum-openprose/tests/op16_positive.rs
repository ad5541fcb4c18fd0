//! Greens only for what is recognised as content: a unit (item, heading,
//! row, paragraph) counts towards a lower bound only when it holds a word
//! of letters that is no index, note, date, time or scaffolding, and a
//! lower bound on words only over text that reads as prose. Everything
//! else is left to the judge, never satisfied by a count.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";

#[test]
fn items_without_a_word_of_content_meet_no_lower_bound() {
    for out in [
        "- 1\n- 2\n- 3\n",
        "- 2019\n- 2020\n- 2021\n",
        "- 10:00\n- 10:05\n- 10:10\n",
        "- 2026-12-01\n- 2026-12-02\n- 2026-12-03\n",
        "- $100\n- $200\n- $300\n",
        "- 1.1\n- 1.2\n- 1.3\n",
        "- §1\n- §2\n- §3\n",
        "- A\n- B\n- C\n",
        "- (a)\n- (b)\n- (c)\n",
        "- #1\n- #2\n- #3\n",
        "- ✅\n- ✅ 2\n- ✅ 3\n",
        "- item.name\n- item.url\n- item.year\n",
        "- heat_pump_1\n- heat_pump_2\n- gas_boiler\n",
        "- n°1\n- n°2\n- n°3\n",
    ] {
        never_green("at least 3 items", out);
        never_green("3 bullet points", out);
    }
}

#[test]
fn repeats_told_apart_by_a_time_a_date_or_a_ditto_count_once() {
    for out in [
        "- 2026-12-01 10:00 Daikin\n- 2026-12-01 10:05 Daikin\n- 2026-12-01 10:10 Daikin\n",
        "- [10:00] Daikin\n- [10:05] Daikin\n- [10:10] Daikin\n",
        "- 10:00 — Daikin\n- 10:05 — Daikin\n- 10:10 — Daikin\n",
        "- Daikin\n- Ditto\n- Ditto\n",
        "- Daikin\n- 〃\n- 〃\n",
        "- Daikin\n- Same as above\n- Same again\n",
        "- Daikin, Bosch\n- Bosch, Daikin\n- Daikin, Bosch (2)\n",
        "- Daikin\n- Daikin's\n- Daikins\n",
    ] {
        never_green("at least 3 items", out);
    }
}

#[test]
fn filler_names_are_no_items() {
    for out in [
        "- Acme\n- Globex\n- Initech\n",
        "- Acme Corp\n- Globex Corporation\n- Initech Inc.\n",
        "- Foo\n- Bar\n- Baz\n",
        "- Contoso\n- Fabrikam\n- Northwind\n",
        "- Beispiel\n- Platzhalter\n- Muster\n",
        "- Lorem\n- Ipsum\n- Dolor\n",
    ] {
        never_green("at least 3 items", out);
    }
}

#[test]
fn index_only_headings_and_rows_in_any_notation_count_for_nothing() {
    for out in [
        "# 1.1\n\ntext\n\n# 1.2\n\ntext\n\n# 1.3\n\ntext\n",
        "# §1\n\nx\n\n# §2\n\ny\n\n# §3\n\nz\n",
        "# (a)\n\nx\n\n# (b)\n\ny\n\n# (c)\n\nz\n",
        "# Part 1.1\n\nx\n\n# Part 1.2\n\ny\n\n# Part 1.3\n\nz\n",
        "# 2026-12-01\n\nx\n\n# 2026-12-02\n\ny\n\n# 2026-12-03\n\nz\n",
    ] {
        never_green("at least 3 headings", out);
    }
    for out in [
        "| # | Name |\n|---|---|\n| 1 | - |\n| 2 | - |\n| 3 | - |\n",
        "| # | Name |\n|---|---|\n| 1 | — |\n| 2 | — |\n| 3 | — |\n",
        "| # | Year |\n|---|---|\n| 1 | 2019 |\n| 2 | 2020 |\n| 3 | 2021 |\n",
        "| Name | Note |\n|---|---|\n| Daikin | 1 |\n| Daikin | 2 |\n| Daikin | 3 |\n",
    ] {
        never_green("a table with at least 3 rows", out);
    }
    for out in ["§1\n\n§2\n\n§3\n", "10:00\n\n10:05\n\n10:10\n"] {
        never_green("at least 3 paragraphs", out);
    }
}

#[test]
fn words_that_are_no_prose_meet_no_lower_bound_on_words() {
    let nato = "Alpha Bravo Charlie Delta Echo Foxtrot Golf Hotel India Juliett Kilo Lima \
                Mike November Oscar Papa Quebec Romeo Sierra Tango Uniform Victor Whiskey";
    let hex = "deadbeef cafebabe feedface baadf00d 8badf00d c0ffee decafbad facefeed \
               abad1dea b16b00b5 0ddba11 d15ea5e defec8ed fee1dead badc0de 1ceb00da \
               bada55 f00dbabe beefcafe dabbad00";
    let keywords = "Daikin Vaillant Bosch Viessmann Mitsubishi Panasonic Samsung LG \
                    Stiebel Eltron Nibe Buderus Wolf Remeha Ariston Carrier Trane Lennox \
                    Rheem Goodman Fujitsu Toshiba Hitachi";
    let lorem = "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod \
                 tempor incididunt ut labore et dolore magna aliqua Ut enim ad minim veniam";
    let joined = "Daikin and Vaillant and Bosch and Viessmann and Mitsubishi and Panasonic \
                  and Samsung and Stiebel and Nibe and Buderus and Wolf";
    let latin = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod \
                 tempor incididunt ut labore et dolore magna aliqua, ut enim ad minim veniam";
    for out in [nato, hex, keywords, lorem, joined, latin] {
        never_green("at least 20 words", &format!("{out}\n"));
        never_green("a summary of at least 20 words", &format!("{out}\n"));
    }
}

#[test]
fn dates_that_cannot_be_and_doubts_written_as_words_leave_a_field_to_the_judge() {
    for year in [
        "2020-02-30",
        "2021-02-29",
        "2020-13-01",
        "2020-00-10",
        "2020-04-31",
        "1970-01-01",
        "1900-01-01",
        "31.02.2020",
        "30 February 2020",
        "2020 unverified",
        "2020 (approx)",
        "approx. 2020",
        "circa 2020",
        "c. 2020",
        "probably 2020",
        "maybe 2020",
        "2020 maybe",
        "est. 2020",
        "2020 estimated",
        "around 2020",
        "2020 or 2021",
        "2020-ish",
        "~2020",
    ] {
        let out = format!(
            "- name: Daikin\n  year: 2019\n- name: Vaillant\n  year: {year}\n- name: Bosch\n  year: 2021\n"
        );
        assert_ne!(
            one("a list; each item has: name, year", &out),
            Verdict::Satisfied,
            "{year}"
        );
    }
}

#[test]
fn doubts_written_as_words_beside_any_value_leave_it_to_the_judge() {
    for maker in [
        "Vaillant (unverified)",
        "Vaillant unverified",
        "Vaillant, unconfirmed",
        "probably Vaillant",
        "possibly Vaillant",
        "Vaillant, likely",
        "presumably Vaillant",
        "Vaillant (est.)",
        "allegedly Vaillant",
        "Vaillant I guess",
        "Vaillant-ish",
        "tentatively Vaillant",
        "Vaillant (disputed)",
    ] {
        let out =
            format!("- model: aroTHERM\n  maker: {maker}\n- model: Altherma\n  maker: Daikin\n");
        assert_ne!(
            one("a list; each item has: model, maker", &out),
            Verdict::Satisfied,
            "{maker}"
        );
    }
    assert_eq!(
        one(
            "a list; each item has: model, maker",
            "- model: aroTHERM\n  maker: Vaillant\n- model: Altherma\n  maker: Daikin\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn metadata_beside_an_empty_answer_is_no_answer() {
    for body in [
        r#"{"summary": "", "model": "gpt-4o", "status": "completed"}"#,
        r#"{"summary": null, "model": "gpt-4o", "status": "completed", "lang": "en"}"#,
        r#"{"summary": " ", "id": "a1b2c3", "created": "2026-12-01T10:00:00Z"}"#,
        r#"{"result": {"summary": ""}, "model": "gpt-4o", "status": "ok"}"#,
    ] {
        assert_ne!(
            one_at("a summary", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
}

#[test]
fn content_is_still_counted_and_kept() {
    green(&[
        ("at least 3 items", "- Daikin\n- Vaillant\n- Bosch\n"),
        (
            "at least 3 items",
            "- Daikin Altherma 3 (2019)\n- Vaillant aroTHERM plus (2020)\n- Bosch Compress 7000i (2021)\n",
        ),
        (
            "at least 3 items",
            "- 10:00 Daikin\n- 10:05 Vaillant\n- 10:10 Bosch\n",
        ),
        (
            "at least 3 headings",
            "# Market\n\nx\n\n# Prices\n\ny\n\n# Outlook\n\nz\n",
        ),
        (
            "at least 3 headings",
            "# 1. Market\n\nx\n\n# 2. Prices\n\ny\n\n# 3. Outlook\n\nz\n",
        ),
        (
            "a table with at least 3 rows",
            "| # | Name |\n|---|---|\n| 1 | Daikin |\n| 2 | Vaillant |\n| 3 | Bosch |\n",
        ),
        (
            "at least 20 words",
            "Heat pump sales in Germany rose by a third in 2024, and the makers of the most \
             popular models expect the market to grow again as gas prices stay high.\n",
        ),
        (
            "at least 20 words",
            "Der Absatz von Wärmepumpen in Deutschland ist im Jahr 2024 um ein Drittel \
             gestiegen, und die Hersteller erwarten, dass der Markt weiter wächst, weil \
             die Gaspreise hoch bleiben.\n",
        ),
        (
            "a list; each item has: name, year",
            "- name: Daikin\n  year: 2019\n- name: Vaillant\n  year: 2020-02-29\n- name: Bosch\n  year: 2021\n",
        ),
    ]);
    assert_eq!(
        one_at(
            "a summary",
            JSON,
            r#"{"summary": "Heat pump sales rose by a third in 2024.", "model": "gpt-4o"}"#
        ),
        kept("a summary")
    );
}

#[test]
fn pages_the_contract_names_are_no_sources_found() {
    let grade = |out: &str| {
        let d = run_with(
            "## Ensures\n\n- `summary`: at least 3 sources\n\n## Strategies\n\n- start from https://www.bafa.de/, https://www.ise.fraunhofer.de/ and https://www.bdh-industrie.de/\n",
            &[("bindings/svc/summary.md", out)],
        );
        let v = by_text(&grade_dir(d.path()));
        assert_eq!(v.len(), 1, "{v:?}");
        v[0].1
    };
    assert_ne!(
        grade("- [BAFA](https://www.bafa.de/)\n- [Fraunhofer ISE](https://www.ise.fraunhofer.de/)\n- [BDH](https://www.bdh-industrie.de/)\n"),
        Verdict::Satisfied
    );
    assert_eq!(
        grade("- [Destatis](https://www.destatis.de/)\n- [IEA](https://www.iea.org/)\n- [UBA](https://www.umweltbundesamt.de/)\n"),
        Verdict::Satisfied
    );
}

#[test]
fn a_second_log_or_root_under_another_name_is_refused() {
    for name in [
        "VM.log.md",
        "vm.log.old.md",
        "vm-log.md",
        "vm.log.md.bak",
        "Root.prose.md",
        "root.prose.md.orig",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: a summary\n",
            &[
                ("bindings/svc/summary.md", "Heat pump sales rose in 2024.\n"),
                (
                    name,
                    "# run:r svc\nroot: root.prose.md\n1→ svc ✗ search-failed\n---error 2026-12-01T10:15:31Z search failed\n",
                ),
            ],
        );
        let e = pactum_openprose::import_run(d.path()).expect_err(name);
        assert!(e.to_string().contains(name), "{name}: {e}");
    }
}

#[test]
fn sources_the_output_calls_dead_or_doubts_are_left_to_the_judge() {
    for note in [
        "(404)",
        "(dead link)",
        "- offline",
        "(link broken)",
        "(unverified)",
        "(not checked)",
        "— may be outdated",
        "(not used)",
        "(unused)",
    ] {
        let out = format!(
            "- [Destatis](https://www.destatis.de/) {note}\n- [IEA](https://www.iea.org/)\n- [UBA](https://www.umweltbundesamt.de/)\n"
        );
        never_green("at least 3 sources", &out);
    }
    assert_eq!(
        one(
            "at least 3 sources",
            "- [Destatis](https://www.destatis.de/)\n- [IEA](https://www.iea.org/)\n- [UBA](https://www.umweltbundesamt.de/)\n"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn one_site_or_a_search_is_no_three_sources() {
    for out in [
        "- https://www.iea.org/\n- https://iea.org/index.html\n- https://www.iea.org/home\n",
        "- https://www.iea.org/reports/a\n- https://www.iea.org/reports/b\n- https://www.iea.org/reports/c\n",
        "- https://www.google.com/search?q=heat+pumps\n- https://www.bing.com/search?q=heat+pumps\n- https://duckduckgo.com/?q=heat+pumps\n",
    ] {
        never_green("at least 3 sources", out);
    }
    for body in [
        r#"["https://www.iea.org/a", "https://www.iea.org/b", "https://www.iea.org/c"]"#,
        r#"["https://www.google.com/search?q=a", "https://www.bing.com/search?q=a", "https://duckduckgo.com/?q=a"]"#,
    ] {
        assert_ne!(
            one_at("at least 3 sources", JSON, body),
            Verdict::Satisfied,
            "{body}"
        );
    }
}

#[test]
fn non_answers_in_other_languages_fill_no_field() {
    for title in [
        "Ohne Titel",
        "Unbekannt",
        "Sans titre",
        "Inconnu",
        "Sin título",
        "Desconocido",
        "Senza titolo",
        "Sconosciuto",
        "Sem título",
        "Onbekend",
        "不明",
        "無題",
        "なし",
    ] {
        let out = format!(
            "- title: Heat pumps in Germany\n  year: 2021\n- title: {title}\n  year: 2022\n"
        );
        assert_ne!(
            one("a list; each item has: title, year", &out),
            Verdict::Satisfied,
            "{title}"
        );
    }
}

#[test]
fn an_end_time_from_2100_on_is_a_sentinel_not_an_instant() {
    for end in [
        "9999-12-31T23:59:59Z",
        "2100-01-01T00:00:00Z",
        "2099-12-31T23:59:59-14:00",
        "1970-01-01T00:00:01Z",
        "1999-12-31T23:59:59Z",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: a summary\n",
            &[
                ("bindings/svc/summary.md", "Heat pump sales rose in 2024.\n"),
                (
                    "vm.log.md",
                    &format!("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end {end}\n"),
                ),
            ],
        );
        assert!(pactum_openprose::import_run(d.path()).is_err(), "{end}");
    }
}

#[test]
fn chat_non_answers_in_two_items_fill_no_field() {
    for v in ["idk", "hmm", "dunno", "meh", "nope", "whatever"] {
        let out = format!(
            "- model: aroTHERM\n  maker: {v}\n- model: Altherma\n  maker: {v}\n- model: Compress\n  maker: Bosch\n"
        );
        assert_ne!(
            one("a list; each item has: model, maker", &out),
            Verdict::Satisfied,
            "{v}"
        );
    }
}

#[test]
fn json_arrays_count_only_elements_recognised_as_content() {
    for body in [
        "[1, 2, 3]",
        r##"["#1", "#2", "#3"]"##,
        r#"["a", "b", "c"]"#,
        r#"["one", "two", "three"]"#,
        r#"["first", "second", "third"]"#,
        r#"["2026-12-01", "2026-12-02", "2026-12-03"]"#,
        r#"["2026-12-01T10:00:00Z", "2026-12-01T10:05:00Z", "2026-12-01T10:10:00Z"]"#,
        r#"["item.name", "item.url", "item.year"]"#,
        r#"["item_1", "item_2", "item_3"]"#,
        r#"["Daikin", "Daikin Inc", "Daikin Ltd"]"#,
        r#"[{"id": 1, "name": "Daikin", "at": "10:00"}, {"id": 2, "name": "Daikin", "at": "10:05"}, {"id": 3, "name": "Daikin", "at": "10:10"}]"#,
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
            r#"["Daikin", "Vaillant", "Bosch"]"#
        ),
        Verdict::Satisfied
    );
}

#[test]
fn one_site_under_other_hosts_ports_or_addresses_is_one_source() {
    for out in [
        "- https://en.wikipedia.org/wiki/Heat_pump\n- https://de.wikipedia.org/wiki/W%C3%A4rmepumpe\n- https://fr.wikipedia.org/wiki/Pompe_%C3%A0_chaleur\n",
        "- https://www.iea.org/a\n- https://www2.iea.org/a\n- https://www3.iea.org/a\n",
        "- https://iea.org:8080/a\n- https://iea.org:8081/a\n- https://iea.org:8443/a\n",
        "- https://www.bbc.co.uk/a\n- https://news.bbc.co.uk/b\n- https://sport.bbc.co.uk/c\n",
        "- https://bit.ly/3abcDEF\n- https://tinyurl.com/y7abcd\n- https://t.co/AbCdEf\n",
        "- https://chatgpt.com/share/abc-123\n- https://claude.ai/share/def-456\n- https://chat.openai.com/share/ghi-789\n",
    ] {
        never_green("at least 3 sources", out);
    }
}

#[test]
fn any_second_log_at_the_top_of_a_run_is_refused() {
    for name in ["run.log.md", "log.md", "ｖｍ.log.md", "VM.LOG.MD"] {
        let d = run_with(
            "## Ensures\n\n- `summary`: a summary\n",
            &[
                ("bindings/svc/summary.md", "Heat pump sales rose in 2024.\n"),
                (
                    name,
                    "# run:r svc\nroot: root.prose.md\n1→ svc ✗ crashed\n---error 2026-12-01T10:15:31Z crashed\n",
                ),
            ],
        );
        assert!(pactum_openprose::import_run(d.path()).is_err(), "{name}");
    }
}

#[test]
fn an_end_time_in_range_with_any_offset_is_read() {
    for end in [
        "2026-12-01T10:15:31Z",
        "2026-12-01T10:15:31+01:00",
        "2099-12-31T23:59:59+01:00",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: at least 2 paragraphs\n",
            &[
                (
                    "bindings/svc/summary.md",
                    "Heat pump sales rose in 2024.\n\nPrices fell as the subsidies grew.\n",
                ),
                (
                    "vm.log.md",
                    &format!("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end {end}\n"),
                ),
            ],
        );
        assert!(pactum_openprose::import_run(d.path()).is_ok(), "{end}");
    }
}

#[test]
fn an_upper_bound_or_a_negation_alone_backs_no_green() {
    for clause in [
        "a summary of at most 200 words",
        "a summary (max. 200 words)",
        "a summary, not mentioning \"lithium\"",
        "at most 1 paragraph",
        "not JSON",
    ] {
        for out in [
            "Done.\n",
            "Insufficient data.\n",
            "Which market do you mean?\n",
        ] {
            never_green(clause, out);
        }
    }
}
