//! Counting sources, items and rows, and reading JSON, as a reader reads
//! the output: links nobody can see are no sources, one page spelled two
//! ways is one source, repeats spelled with lookalike letters or keys in
//! another order are repeats, placeholders are nothing. Each wrong green
//! here must now be violated or left to the judge, never satisfied; each
//! control stays satisfied.

use pactum_core::Verdict;

mod common;
use common::*;

/// A link whose text shows nothing is nothing to click: no source, and
/// an output of empty links or empty numbered items shows nothing.
#[test]
fn links_nobody_can_see_are_no_sources() {
    none_green(&[
        (
            "at least 3 sources",
            "See [](https://a.org/x) [](https://b.org/y) [](https://c.org/z) here.\n",
        ),
        (
            "at least 3 sources",
            "See [ ](https://a.org/x)[\u{200b}](https://b.org/y)[<!-- -->](https://c.org/z) here.\n",
        ),
        (
            "at least 3 sources",
            "Battery survey [x][a][][b][ ][c].\n\n[a]: https://a.org/x\n[b]: https://b.org/y\n[c]: https://c.org/z\n",
        ),
        (
            "at least 2 sources",
            "See [x](https://a.org/x) and [&#8203;](https://b.org/y).\n",
        ),
        ("a summary", "[](https://a.org/x)\n"),
        ("a summary", "1.\n2.\n3.\n"),
        ("a summary", "1)\n2)\n"),
    ]);
    green(&[
        (
            "at least 3 sources",
            "See [A](https://a.org/x), [B](https://b.org/y) and [C][c].\n\n[c]: https://c.org/z\n",
        ),
        (
            "at least 2 sources",
            "See <https://a.org/x> and https://b.org/y.\n",
        ),
        (
            "at least 2 sources",
            "See [![logo](https://i.org/l.png)](https://a.org/x) and [B](https://b.org/y).\n",
        ),
        ("a summary", "1. Sodium cells are cheaper.\n"),
    ]);
}

/// An upper bound on sources counts HTML links and `www.` autolinks.
#[test]
fn html_and_www_links_count_for_an_upper_bound() {
    none_green(&[
        (
            "at most 1 source",
            "See <a href=\"https://a.org/x\">A</a>, <a href=\"https://b.org/y\">B</a> and <a href=\"https://c.org/z\">C</a>.\n",
        ),
        (
            "at most 1 source",
            "See <A HREF='https://a.org/x'>A</A> and <a title=t href=https://b.org/y>B</a>.\n",
        ),
        ("at most 1 source", "See www.a.org/x and www.b.org/y.\n"),
        ("at most 1 source", "See www.a.org and https://b.org/y.\n"),
        (
            "exactly 1 source",
            "See [A](https://a.org/x) and <a href=\"https://b.org/y\">B</a>.\n",
        ),
    ]);
    green(&[
        (
            "at most 1 source",
            "See <a href=\"https://a.org/x\">A</a>.\n",
        ),
        ("at most 2 sources", "See www.a.org/x and www.a.org/x.\n"),
    ]);
}

/// One page spelled as a browser reads it the same way is one source.
#[test]
fn one_page_spelled_two_ways_is_one_source() {
    let pairs = [
        ("https://bücher.de/a", "https://xn--bcher-kva.de/a"),
        ("https://ex.org/caf%C3%A9", "https://ex.org/café"),
        ("https://ex.org/a", "https://ex.org\\a"),
        ("https://ex.org/a", "https://ex.org:0443/a"),
        ("https://ex.org/a", "https://EX.org:443/a"),
        ("https://ｅｘ.org/a", "https://ex.org/a"),
        ("https://ex.org/a?q=ü", "https://ex.org/a?q=%C3%BC"),
    ];
    for (a, b) in pairs {
        let binding = format!("Sources: <{a}> and <{b}>.\n");
        assert_ne!(
            one("at least 2 sources", &binding),
            Verdict::Satisfied,
            "{binding:?}"
        );
    }
    green(&[
        (
            "at least 2 sources",
            "Sources: <https://ex.org/a> and <https://ex.net:8443/a>.\n",
        ),
        (
            "at least 2 sources",
            "Sources: <https://ex.org/café> and <https://ex.net/cafe>.\n",
        ),
    ]);
}

/// A JSON object repeated with its keys reordered, `1` written `1.0` or
/// a `null` field added is the same item.
#[test]
fn repeated_json_objects_are_one_item() {
    none_green(&[
        (
            "at least 3 items",
            "[{\"t\":\"a\",\"u\":1},{\"u\":1,\"t\":\"a\"},{\"t\":\"b\"}]",
        ),
        (
            "at least 3 items",
            "[{\"t\":\"a\",\"u\":1},{\"t\":\"a\",\"u\":1.0},{\"t\":\"b\"}]",
        ),
        (
            "at least 3 items",
            "[{\"t\":\"a\",\"u\":null},{\"t\":\"a\"},{\"t\":\"b\"}]",
        ),
        (
            "at least 3 items",
            "[{\"t\":{\"x\":[1,2],\"y\":\"Q\"}},{\"t\":{\"y\":\"q\",\"x\":[1.0,2e0]}},{\"t\":\"b\"}]",
        ),
        ("at least 3 items", "[[\"a\",1],[\"A\",1.0],[\"b\"]]"),
    ]);
    green(&[(
        "at least 3 items",
        "[[\"Daikin\",\"Japan\"],[\"Bosch\",\"Germany\"],[\"Vaillant\"]]",
    )]);
    // Objects told apart only beside their name (an id, a number) are
    // the judge's: never violated, never met by the first count.
    assert_eq!(
        one_at(
            "at least 3 items",
            "bindings/svc/summary.json",
            "[{\"t\":\"a\",\"u\":1},{\"t\":\"a\",\"u\":2},{\"t\":\"b\"}]",
        ),
        pactum_core::Verdict::NotEvaluable
    );
}

/// A repeat spelled with lookalike letters is a repeat.
#[test]
fn lookalike_repeats_are_repeats() {
    none_green(&[
        (
            "at least 3 items",
            "- Alpha\n- \u{391}lpha\n- \u{410}lpha\n",
        ),
        ("at least 3 items", "- Alpha\n- Ａｌｐｈａ\n- 𝐀𝐥𝐩𝐡𝐚\n"),
        (
            "at least 3 items",
            "[\"Alpha\",\"\u{391}lpha\",\"\u{410}lpha\"]",
        ),
        (
            "at least 3 rows",
            "| n |\n|---|\n| Alpha |\n| \u{391}lpha |\n| \u{410}lpha |\n",
        ),
        (
            "at least 3 paragraphs",
            "Alpha cells.\n\n\u{391}lpha cells.\n\n\u{410}lpha cells.\n",
        ),
        (
            "at least 3 headings",
            "# Alpha\n\n# \u{391}lpha\n\n# Ａｌｐｈａ\n",
        ),
    ]);
    green(&[
        ("at least 3 items", "- Alpha\n- Beta\n- Gamma\n"),
        ("at least 3 items", "- Альфа\n- Бета\n- Гамма\n"),
        ("at least 2 items", "- Ελλάδα\n- Κύπρος\n"),
    ]);
}

/// A fenced JSON value is JSON whatever CommonMark fence holds it, and
/// whatever hidden content is around it.
#[test]
fn fenced_json_is_json() {
    green(&[
        ("a JSON array", "~~~json\n[\"a\",\"b\",\"c\"]\n~~~\n"),
        (
            "a JSON array",
            "```json\n[\"a\",\"b\",\"c\"]\n```\n<!-- ignore -->\n",
        ),
        (
            "a JSON array",
            "<!-- note -->\n````json\n[\"a\",\"b\"]\n````\n",
        ),
        ("a JSON array", "~~~\n[\"Sodium\"]\n~~~~\n"),
        ("a JSON array", "```JSON\n[\"Sodium\"]\n```\n"),
        (
            "at least 3 items",
            "~~~json\n[\"oak\",\"pine\",\"elm\"]\n~~~\n",
        ),
    ]);
    none_green(&[
        ("a JSON array", "Intro.\n\n~~~json\n[\"a\"]\n~~~\n"),
        (
            "a JSON array",
            "~~~json\n[\"a\"]\n~~~\n\n~~~json\n[\"b\"]\n~~~\n",
        ),
        ("a JSON array", "~~~python\n[\"a\"]\n~~~\n"),
        ("a JSON array", "    [\"a\"]\n\nTail.\n"),
    ]);
}

/// A placeholder after a dash, in a table, or spelled out is nothing.
#[test]
fn spelled_out_placeholders_are_nothing() {
    none_green(&[
        ("a summary", "Summary - TBD\n"),
        ("a summary", "Summary — TBD\n"),
        ("a summary", "**Summary** – N/A\n"),
        ("a summary", "| Summary |\n|---|\n| TBD |\n"),
        (
            "a summary",
            "| Summary | Notes |\n|---|---|\n| TBD | N/A |\n",
        ),
        ("a summary", "To be determined\n"),
        ("a summary", "To be confirmed.\n"),
        ("a summary", "# Summary\n\nTo be announced.\n"),
        ("a summary", "Coming soon.\n"),
        ("a summary", "Summary: coming soon\n"),
    ]);
    green(&[
        ("a summary", "Summary - sodium cells are cheaper.\n"),
        ("a summary", "| Summary |\n|---|\n| Sodium is cheap. |\n"),
        ("a summary", "Prices are to be determined by the market.\n"),
    ]);
}

/// A forbidden word spelled with any UTS #39 lookalike is not green.
#[test]
fn negated_quotes_see_every_lookalike() {
    none_green(&[
        ("not mentioning \"lithium\"", "We use \u{13de}ithium.\n"),
        ("not mentioning \"lithium\"", "We use 1ithium.\n"),
        ("not mentioning \"lithium\"", "We use L\u{456}thium.\n"),
        ("not mentioning \"lithium\"", "We use Iithium.\n"),
    ]);
    green(&[
        ("not mentioning \"lithium\"", "We use sodium.\n"),
        ("not mentioning \"cobalt\"", "Cobble paths.\n"),
    ]);
}

/// A word count is not decided over text of a script written without
/// spaces that pactum does not split.
#[test]
fn unspaced_scripts_leave_word_bounds_to_the_judge() {
    none_green(&[
        ("at most 5 words", "ꦱꦼꦭꦱꦺꦴꦭꦶꦢ꧀ꦱ꧀ꦠꦺꦠ꧀ꦧꦠꦼꦫꦻꦏꦁꦲꦤꦾꦂꦏꦁꦮꦼꦤꦁꦲꦶꦁꦏꦁ\n"),
        ("at most 5 words", "ᬲᬸᬭᬵᬢ᭄ᬲᬬᬸᬓᬢᬸᬭᬶᬭᬶᬓᬵᬦ᭄ᬦᬶᬂᬩᬲᬵᬩᬮᬶᬲᬩᬢ᭄ᬢᬸᬭᬶ\n"),
        ("at most 3 words", "ᨠᨛᨑᨛᨈᨛᨊᨆᨙᨕᨗᨔᨗᨊᨀᨚᨊᨛᨑᨆᨛ\n"),
    ]);
    green(&[
        ("at most 5 words", "Sodium cells are cheap.\n"),
        ("at most 5 words", "Натриевые ячейки дешевле.\n"),
        ("at most 5 words", "सोडियम सेल सस्ते हैं।\n"),
        ("at most 5 words", "خلايا الصوديوم أرخص.\n"),
        ("at most 12 words", "人々は電池を使う。\n"),
    ]);
}
