//! Hostile review: characters a browser draws as nothing must be shown as
//! `U+XXXX` in the HTML page (SPEC §4), or a hidden instruction in a trace
//! (Unicode tag characters, "ASCII smuggling") is invisible to a reviewer.
//! Fails today: only BMP ranges are boxed.

use pactum_report::html::shown_as_code_point;

#[test]
fn default_ignorable_characters_are_shown_as_code_points() {
    let invisible = [
        '\u{E0001}', // language tag
        '\u{E0041}', // tag latin capital A
        '\u{E007F}', // cancel tag
        '\u{FE0F}',  // variation selector-16
        '\u{E0100}', // variation selector-17
        '\u{034F}',  // combining grapheme joiner
        '\u{115F}',  // hangul choseong filler
        '\u{3164}',  // hangul filler
        '\u{FFA0}',  // halfwidth hangul filler
        '\u{17B4}',  // khmer vowel inherent aq
        '\u{1D173}', // musical symbol begin beam
    ];
    let missed: Vec<String> = invisible
        .iter()
        .filter(|c| !shown_as_code_point(**c))
        .map(|c| format!("U+{:04X}", u32::from(*c)))
        .collect();
    assert!(missed.is_empty(), "drawn as nothing, not boxed: {missed:?}");
}
