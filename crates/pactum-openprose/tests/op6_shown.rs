//! What an output shows (the sixth review): keys that read whole only once
//! the Markdown renders are found for redaction, and hidden text is only
//! what a renderer hides. Each wrong green here must now be violated, left
//! to the judge (`not_evaluable` without one), or undetermined — never
//! satisfied.

use pactum_core::Verdict;
use pactum_openprose::import_run;

mod common;
use common::*;

/// A key split by a tag, a character reference or a link reads whole on
/// the page: the run names it, and the source text it renders from, for
/// redaction, however short the pieces between the markup.
#[test]
fn keys_split_by_markup_are_found_in_a_run() {
    const KEY: &str = "sk-proj-ABCDEF0123456789abcdef0123456789";
    for split in [
        "sk-proj-ABCDEF<wbr>0123456789abcdef0123456789",
        "sk-proj-ABCDEF<span>0123456789abcdef0123456789</span>",
        "sk-proj-ABCDEF<b></b>0123456789abcdef0123456789",
        "sk-proj-ABCDEF&shy;0123456789abcdef0123456789",
        "sk-proj-ABCDEF[0123456789abcdef0123456789](x)",
        "sk-proj-ABCDEF<br>0123456789abcdef0123456789",
        "sk-pro<b></b>j-ABCD<b></b>EF0123<b></b>456789<b></b>abcdef<b></b>0123456789",
    ] {
        let d = run_with(
            "## Ensures\n\n- `summary`: at most 1 paragraph\n",
            &[(
                "bindings/svc/summary.md",
                &format!("Key {split} end.\n\nSecond paragraph here.\n"),
            )],
        );
        let run = import_run(d.path()).expect("imports");
        let found = run.shown_keys();
        assert_eq!(found.keys, vec![KEY.to_string()], "{split}");
        let secrets: Vec<&str> = found.secrets().collect();
        let redactor = pactum_core::secret::Redactor::new(secrets).expect("secrets");
        let shown = redactor.redact(split);
        assert_eq!(
            shown.trim_end_matches("</span>").trim_end_matches("](x)"),
            "[redacted]",
            "{split}"
        );
    }
}

/// Inline HTML cannot span blocks: a comment, processing instruction,
/// CDATA section or declaration left open in a paragraph, list item,
/// heading or quote is text, and the blocks after it render. A comment
/// block in a list item ends with the item for a CommonMark reader.
#[test]
fn markup_left_open_in_a_block_hides_no_later_block() {
    for out in [
        "- alpha <!--\n- beta\n- gamma\n- delta -->\n",
        "Intro text <!--\n\n- beta\n- gamma\n- delta\n\nend -->\n",
        "> quote <!--\n\n- beta\n- gamma\n- delta\n\n-->\n",
        "# Head <!--\n\n- beta\n- gamma\n- delta\n\n-->\n",
        "Intro text <?\n\n- beta\n- gamma\n- delta\n\nend ?>\n",
        "Intro text <![CDATA[\n\n- beta\n- gamma\n- delta\n\nend ]]>\n",
        "Intro text <!DOCTYPE\n\n- beta\n- gamma\n- delta\n\nend >\n",
        "1. alpha\n   <!--\n2. beta\n3. gamma\n4. delta\n-->\n",
    ] {
        never_green("at most 1 items", out);
    }
    // Shown text, so an upper bound over it is violated outright.
    assert_eq!(
        one(
            "at most 1 items",
            "- alpha <!--\n- beta\n- gamma\n- delta -->\n"
        ),
        Verdict::Violated
    );
    // A browser may hide what follows a comment block a list item ends:
    // no lower bound holds over it either.
    never_green(
        "at least 3 items",
        "1. alpha\n   <!--\n2. beta\n3. gamma\n4. delta\n-->\n",
    );
    // Closed comments, inline or as blocks, still hide what they hold.
    assert_eq!(
        one(
            "at most 1 items",
            "- alpha <!-- hidden -->\n\n<!--\n- beta\n- gamma\n-->\n"
        ),
        Verdict::NotEvaluable
    );
}

/// A line written like a link reference definition that continues a
/// paragraph, an item or a table is text (a definition cannot interrupt
/// a paragraph): its words are shown, and counted.
#[test]
fn a_definition_line_continuing_a_paragraph_is_text() {
    for out in [
        "Intro.\n[x]: /u \"solid state batteries replace liquid electrolytes with ceramics which raises density and safety\"\n",
        "- Intro.\n  [x]: /u \"solid state batteries replace liquid electrolytes with ceramics which raises density\"\n",
        "| a |\n|---|\n| b |\n[x]: /u \"solid state batteries replace liquid electrolytes with ceramics which raises density\"\n",
    ] {
        assert_eq!(one("at most 5 words", out), Verdict::Violated, "{out}");
    }
    // Its text is shown: a quote there is found (set in quotation marks,
    // it is mentioned rather than said, so it is the judge's).
    assert_eq!(
        one(
            "saying \"solid electrolytes are safer\"",
            "Intro.\n[x]: /u \"solid electrolytes are safer\"\n"
        ),
        Verdict::NotEvaluable
    );
    // The same line where a paragraph may start is a definition: hidden.
    assert_eq!(
        one(
            "at most 5 words",
            "Intro.\n\n[x]: /u \"solid state batteries replace liquid electrolytes with ceramics\"\n"
        ),
        Verdict::NotEvaluable
    );
}

/// A definition's title is never shown, on the definition's line or on
/// the next: a quote found only there is no evidence.
#[test]
fn a_definition_title_on_the_next_line_is_hidden() {
    for out in [
        "Intro text.\n\n[x]: /u\n  \"solid electrolytes are safer\"\n",
        "Intro text.\n\n[x]: /u\n\"solid electrolytes are safer\"\n",
        "Intro text.\n\n[x]:\n/u\n'solid electrolytes are safer'\n",
        "Intro text [x].\n\n[x]: /u\n  \"solid electrolytes are safer\"\n",
    ] {
        never_green("saying \"solid electrolytes are safer\"", out);
    }
}

/// YAML front matter is shown by GitHub (a table) and CommonMark (text):
/// an upper bound counts its words; a lower bound is not met by them.
#[test]
fn front_matter_counts_for_upper_bounds_only() {
    let fm = "---\nsummary: Solid state batteries replace the liquid electrolyte with a ceramic or polymer separator which raises energy density and safety\nverdict: promising but expensive and years from volume production in cars\n---\nShort body here.\n";
    assert_eq!(one("at most 10 words", fm), Verdict::Violated);
    never_green("at least 20 words", fm);
    assert_eq!(
        one("at most 10 words", "Short body here.\n"),
        Verdict::NotEvaluable
    );
}

/// A right-to-left override shows text reversed: a quote found as
/// written in an output holding a bidirectional control is for the judge.
#[test]
fn a_quote_in_text_with_a_bidi_control_is_for_the_judge() {
    let says = "saying \"solid electrolytes are safer\"";
    for out in [
        "Our finding: \u{202e}solid electrolytes are safer\u{202c} overall.\n",
        "Our finding: &#x202E;solid electrolytes are safer&#x202C; overall.\n",
        "Our finding: \u{2067}solid electrolytes are safer\u{2069} overall.\n",
    ] {
        never_green(says, out);
    }
    assert_eq!(
        one(says, "Our finding: solid electrolytes are safer overall.\n"),
        kept(says)
    );
    assert_eq!(
        one(says, "Solid electrolytes are safer.\n"),
        Verdict::Satisfied
    );
}

/// GitHub's math rendering can hide text (`\phantom`, a white `\color`):
/// what held over an output holding such math is for the judge.
#[test]
fn text_hidden_by_math_is_for_the_judge() {
    never_green(
        "saying \"solid electrolytes are safer\"",
        "Our finding is below.\n\n$$\\phantom{solid electrolytes are safer}$$\n",
    );
    never_green(
        "saying \"solid electrolytes are safer\"",
        "Our finding: $\\color{white}{\\text{solid electrolytes are safer}}$\n",
    );
    never_green(
        "at least 20 words",
        "Our finding is below.\n\n$$\\phantom{a b c d e f g h i j k l m n o p q r s t u v w x y z}$$\n",
    );
    assert_eq!(
        one(
            "at least 10 words",
            "Energy is $E = mc^2$ here, as the equation from the paper of 1905 tells us.\n"
        ),
        Verdict::Satisfied
    );
}
