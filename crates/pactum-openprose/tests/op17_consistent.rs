//! What pactum already recognises as no content is no content wherever
//! it appears: a non-answer it refuses as a field's value is no item
//! either, a function word it reads prose by is no item, a legal form in
//! any of its languages tells no company apart, one value is one item in
//! any JSON shape, and a page that is no source (a search page, a
//! shortened link, a chatbot's conversation) fills no `url` field.

use pactum_core::Verdict;

mod common;
use common::*;

const JSON: &str = "bindings/svc/summary.json";

#[test]
fn listed_non_answers_are_no_items_rows_or_headings() {
    for (clause, out) in [
        ("at least 3 items", "- unknown\n- not known\n- unidentified\n"),
        ("at least 3 items", "- Unbekannt\n- Desconocido\n- Inconnu\n"),
        ("at least 3 items", "- 不明\n- 無題\n- なし\n"),
        ("at least 3 items", "- Onbekend\n- Sconosciuto\n- Desconhecido\n"),
        (
            "at least 3 rows",
            "| maker | price |\n|---|---|\n| Sin título | 10 |\n| Sans titre | 10 |\n| Ohne Titel | 10 |\n",
        ),
        ("at least 3 headings", "# Unknown\n\nText.\n\n# Not known\n\nText.\n\n# Unidentified\n\nText.\n"),
    ] {
        never_green(clause, out);
    }
    for out in [
        "[\"unknown\", \"not known\", \"unidentified\"]",
        "[{\"maker\": \"Unbekannt\"}, {\"maker\": \"Inconnu\"}, {\"maker\": \"Desconocido\"}]",
    ] {
        assert_ne!(
            one_at("at least 3 items", JSON, out),
            Verdict::Satisfied,
            "{out}"
        );
    }
    // Control: real names still count.
    green(&[("at least 3 items", "- Daikin\n- Vaillant\n- Bosch\n")]);
}

#[test]
fn function_words_are_no_items() {
    for out in [
        "- der\n- die\n- das\n",
        "- le\n- la\n- les\n",
        "- und\n- oder\n- aber\n",
        "- el\n- la\n- los\n",
        "- de\n- het\n- een\n",
        "- il\n- lo\n- gli\n",
    ] {
        never_green("at least 3 items", out);
    }
    for out in ["[\"der\", \"die\", \"das\"]", "[\"le\", \"la\", \"les\"]"] {
        assert_ne!(
            one_at("at least 3 items", JSON, out),
            Verdict::Satisfied,
            "{out}"
        );
    }
    // Control: an article beside a name does not hide it.
    green(&[(
        "at least 3 items",
        "- The Daikin\n- Le Vaillant\n- Der Bosch\n",
    )]);
}

#[test]
fn a_legal_form_in_any_language_tells_no_company_apart() {
    for out in [
        "- Daikin\n- Daikin GmbH\n- Daikin AG\n",
        "- Daikin\n- Daikin SAS\n- Daikin SARL\n",
        "- Vaillant\n- Vaillant AG\n- Vaillant SE\n",
        "- Bosch\n- Bosch S.p.A.\n- Bosch BV\n",
        "- Bosch\n- Bosch Oy\n- Bosch AB\n",
    ] {
        never_green("at least 3 items", out);
    }
    never_green(
        "at least 3 rows",
        "| maker | kW |\n|---|---|\n| Vaillant | 10 |\n| Vaillant GmbH | 10 |\n| Vaillant AG | 10 |\n",
    );
    assert_ne!(
        one_at(
            "at least 3 items",
            JSON,
            "[\"Vaillant AG\", \"Vaillant GmbH\", \"Vaillant SE\"]"
        ),
        Verdict::Satisfied
    );
    green(&[(
        "at least 3 items",
        "- Daikin GmbH\n- Vaillant GmbH\n- Bosch AG\n",
    )]);
}

#[test]
fn one_value_is_one_item_in_any_json_shape() {
    for out in [
        "[\"Vaillant\", [\"Vaillant\"], {\"name\": \"Vaillant\"}]",
        "[\"Vaillant\", [\"Vaillant\"], [\"Vaillant\", null]]",
        "[{\"name\": \"Vaillant\"}, \"Vaillant\", [\"vaillant\"]]",
    ] {
        assert_ne!(
            one_at("at least 3 items", JSON, out),
            Verdict::Satisfied,
            "{out}"
        );
    }
    assert_eq!(
        one_at(
            "at least 3 items",
            JSON,
            "[\"Vaillant\", [\"Bosch\"], {\"name\": \"Daikin\"}]"
        ),
        Verdict::Satisfied
    );
}

#[test]
fn pages_that_are_no_source_meet_no_count_of_sources() {
    let three = |a: &str, b: &str, c: &str| {
        format!("Solid-state battery output rose in 2025, see:\n\n- {a}\n- {b}\n- {c}\n")
    };
    for out in [
        // Chatbots' shared conversations and artifacts.
        three(
            "https://grok.com/share/bGVnYWN5",
            "https://chat.deepseek.com/a/chat/s/1a2b3c",
            "https://poe.com/s/Xy12Ab34",
        ),
        three(
            "https://huggingface.co/chat/r/abc123",
            "https://www.meta.ai/c/9f8e7d",
            "https://chat.qwen.ai/s/5d6e7f",
        ),
        three(
            "https://claude.ai/public/artifacts/4c5d",
            "https://manus.im/share/7Hk2",
            "https://kimi.moonshot.cn/share/cu8j",
        ),
        three(
            "https://x.com/i/grok/share/Ab12",
            "https://you.com/share/Cd34",
            "https://pi.ai/s/Ef56",
        ),
        // Shortened links.
        three(
            "https://amzn.to/3Kq9ZrT",
            "https://aka.ms/battery-report",
            "https://share.google/Ab12Cd34",
        ),
        three(
            "https://w.wiki/7Xy",
            "https://qr.ae/pKq3",
            "https://linktr.ee/battery",
        ),
        // Search pages of sites, by their own query parameters.
        three(
            "https://pubmed.ncbi.nlm.nih.gov/?term=solid+state+battery",
            "https://www.amazon.de/s?k=solid+state+battery",
            "https://www.ebay.de/sch/i.html?_nkw=solid+state+battery",
        ),
        three(
            "https://www.booking.com/searchresults.html?ss=Berlin",
            "https://search.yahoo.com/yhs?p=battery",
            "https://www.google.com/webhp?hl=en#q=battery",
        ),
    ] {
        assert_ne!(
            one_at("at least 3 sources", "bindings/svc/summary.md", &out),
            Verdict::Satisfied,
            "{out}"
        );
    }
    // Control: research pages are sources, not searches.
    assert_eq!(
        one_at(
            "at least 3 sources",
            "bindings/svc/summary.md",
            &three(
                "https://www.nature.com/research/solid-state",
                "https://www.iea.org/reports/batteries-2025",
                "https://www.fraunhofer.de/en/research/batteries.html",
            )
        ),
        Verdict::Satisfied
    );
}

#[test]
fn a_page_that_is_no_source_leaves_a_url_field_to_the_judge() {
    let d = run_with(
        "## Ensures\n\n- `makers`: each maker has: name, url\n",
        &[(
            "bindings/svc/makers.md",
            "| name | url |\n|---|---|\n| Vaillant | https://grok.com/share/bGVnYWN5 |\n| Bosch | https://amzn.to/3Kq9ZrT |\n| Daikin | https://pubmed.ncbi.nlm.nih.gov/?term=daikin |\n",
        )],
    );
    let v = by_text(&grade_dir(d.path()));
    assert_eq!(v[0].1, Verdict::NotEvaluable, "{v:?}");
    let d = run_with(
        "## Ensures\n\n- `makers`: each maker has: name, url\n",
        &[(
            "bindings/svc/makers.json",
            "[{\"name\": \"Vaillant\", \"url\": \"https://amzn.to/3Kq9ZrT\"}, {\"name\": \"Bosch\", \"url\": \"https://www.bosch.de/\"}]",
        )],
    );
    let v = by_text(&grade_dir(d.path()));
    assert_ne!(v[0].1, Verdict::Satisfied, "{v:?}");
}

#[test]
fn sources_disowned_by_the_line_above_them_meet_no_count() {
    let list = "- https://www.iea.org/reports/heat-pumps\n- https://www.bafa.de/waermepumpen\n- https://www.ademe.fr/pompes\n";
    for intro in [
        "## Excluded sources (unreliable, not used)\n\n",
        "I did not use any of the following pages:\n",
        "## Links to check later (not read yet)\n\n",
        "## Pages I could not open\n\n",
        "## Nicht erreichbare Quellen\n\n",
        "<!-- all three sources are made up -->\n",
    ] {
        let out = format!("Heat pump sales rose in 2023.\n\n{intro}{list}");
        never_green("at least 3 sources", &out);
    }
    let out = format!(
        "Heat pump sales rose in 2023.\n\n{list}\nAll three links above returned errors.\n"
    );
    never_green("at least 3 sources", &out);
    green(&[(
        "at least 3 sources",
        &format!("Heat pump sales rose in 2023.\n\n## Sources\n\n{list}"),
    )]);
}

#[test]
fn a_lower_bound_any_short_note_meets_asks_for_no_more_than_existence() {
    for clause in [
        "a summary of at least 1 word",
        "a summary of 1-200 words",
        "a summary of between 1 and 200 words",
        "a summary with at least 1 paragraph",
    ] {
        for out in ["Done.", "I need more information."] {
            never_green(clause, out);
        }
    }
}

#[test]
fn input_words_cut_up_or_singularised_are_a_copy() {
    for out in [
        "- solid\n- state\n- battery\n",
        "- Solid\n- State\n- Battery\n",
        "- battery\n- solid\n- state\n",
    ] {
        never_green("at least 3 items", out);
    }
}

#[test]
fn the_eighteenth_review_s_lists_are_read() {
    // A non-answer beside a label or a name tells no unit apart.
    for (clause, out) in [
        (
            "at least 3 items",
            "- **Maker:** unknown\n- **Maker:** Unbekannt\n- **Maker:** Inconnu\n",
        ),
        (
            "at least 3 rows",
            "| maker | note |\n|---|---|\n| Daikin | unknown |\n| Daikin | Inconnu |\n| Daikin | Unbekannt |\n",
        ),
        // Group words, generic makers and "others" in other languages.
        ("at least 3 items", "- Bosch\n- Bosch Gruppe\n- Groupe Bosch\n"),
        ("at least 3 items", "- Andere\n- Sonstige\n- Weitere\n"),
        ("at least 3 items", "- Firma\n- Unternehmen\n- Hersteller\n"),
        // Pronouns and contracted articles.
        ("at least 3 items", "- zum\n- wir\n- nous\n"),
    ] {
        never_green(clause, out);
    }
    let three = |a: &str, b: &str, c: &str| {
        format!("Heat pump sales rose in 2023, see:\n\n- {a}\n- {b}\n- {c}\n")
    };
    for out in [
        three(
            "https://www.spiegel.de/suche/?suchbegriff=waermepumpe",
            "https://www.otto.de/suche/waermepumpe/",
            "https://elpais.com/buscador/?qt=bomba+de+calor",
        ),
        three(
            "https://www.aliexpress.com/wholesale?SearchText=heat+pump",
            "https://www.marktplaats.nl/q/warmtepomp/",
            "https://en.wikipedia.org/wiki/Special:Search/heat_pump",
        ),
        three(
            "https://sharegpt.com/c/AbC123",
            "https://claude-ai.translate.goog/share/abc?_x_tr_sl=auto",
            "https://translate.google.com/translate?u=https://chatgpt.com/share/abc",
        ),
        three(
            "https://tiny.one/abc123",
            "https://t1p.de/xyz9",
            "https://forms.gle/AbC123",
        ),
    ] {
        never_green("at least 3 sources", &out);
    }
    let listed = three(
        "https://www.iea.org/reports/heat-pumps",
        "https://www.bafa.de/waermepumpen",
        "https://www.ademe.fr/pompes",
    );
    for out in [
        format!("{listed}\nNone of these links were opened.\n"),
        format!("## Quellen (nicht geprüft)\n\n{listed}"),
        format!("## Sources (non vérifiées)\n\n{listed}"),
    ] {
        never_green("at least 3 sources", &out);
    }
}
