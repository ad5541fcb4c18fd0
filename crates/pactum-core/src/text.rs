//! Untrusted text (SPEC §4): everything a trace, a target or a judge
//! supplies is bounded in length and stripped of terminal escape sequences
//! before it reaches a terminal. Pure string functions; they never fail.

/// The longest untrusted excerpt a summary line shows, in characters.
pub const SUMMARY_CHARS: usize = 240;

/// Whether `s` shows a reader nothing: only whitespace and invisible
/// characters (controls, zero-width and bidirectional formatting
/// characters, the soft hyphen, the byte order mark).
pub fn is_blank(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_whitespace() || crate::secret::is_invisible(c))
}

/// The code points shown as `U+XXXX` rather than as themselves
/// (inclusive ranges, sorted): controls other than tab and line feed,
/// every format character (general category Cf: bidirectional overrides
/// and isolates, zero-width characters, the Unicode tag characters of
/// "ASCII smuggling"), every Default_Ignorable_Code_Point (variation
/// selectors, Hangul fillers, the combining grapheme joiner, the
/// reserved ignorable blocks up to U+E0FFF), the line and paragraph
/// separators, the blank Braille pattern, and the noncharacters
/// (U+FDD0–U+FDEF and the last two code points of every plane: U+FFFE,
/// U+FFFF … U+10FFFF), which a font draws as nothing or a blank. Each draws as nothing, or
/// as a blank, or changes the text around it, so a hidden instruction or
/// two ids that differ only by one would read the same (SPEC §4). The
/// one rule for the HTML page, its script, the Markdown summary and the
/// terminal. An emoji's variation selector or joiner is shown too:
/// hidden text is worse than a boxed selector.
pub const CODE_POINT_SHOWN: &[(char, char)] = &[
    ('\u{0}', '\u{8}'),
    ('\u{b}', '\u{1f}'),
    ('\u{7f}', '\u{9f}'),
    ('\u{ad}', '\u{ad}'),
    ('\u{34f}', '\u{34f}'),
    ('\u{600}', '\u{605}'),
    ('\u{61c}', '\u{61c}'),
    ('\u{6dd}', '\u{6dd}'),
    ('\u{70f}', '\u{70f}'),
    ('\u{890}', '\u{891}'),
    ('\u{8e2}', '\u{8e2}'),
    ('\u{115f}', '\u{1160}'),
    ('\u{17b4}', '\u{17b5}'),
    ('\u{180b}', '\u{180f}'),
    ('\u{200b}', '\u{200f}'),
    ('\u{2028}', '\u{202e}'),
    ('\u{2060}', '\u{206f}'),
    ('\u{2800}', '\u{2800}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{fdd0}', '\u{fdef}'),
    ('\u{fe00}', '\u{fe0f}'),
    ('\u{feff}', '\u{feff}'),
    ('\u{ffa0}', '\u{ffa0}'),
    ('\u{fff0}', '\u{fffb}'),
    ('\u{fffe}', '\u{ffff}'),
    ('\u{110bd}', '\u{110bd}'),
    ('\u{110cd}', '\u{110cd}'),
    ('\u{13430}', '\u{1343f}'),
    ('\u{1bca0}', '\u{1bca3}'),
    ('\u{1d173}', '\u{1d17a}'),
    ('\u{1fffe}', '\u{1ffff}'),
    ('\u{2fffe}', '\u{2ffff}'),
    ('\u{3fffe}', '\u{3ffff}'),
    ('\u{4fffe}', '\u{4ffff}'),
    ('\u{5fffe}', '\u{5ffff}'),
    ('\u{6fffe}', '\u{6ffff}'),
    ('\u{7fffe}', '\u{7ffff}'),
    ('\u{8fffe}', '\u{8ffff}'),
    ('\u{9fffe}', '\u{9ffff}'),
    ('\u{afffe}', '\u{affff}'),
    ('\u{bfffe}', '\u{bffff}'),
    ('\u{cfffe}', '\u{cffff}'),
    ('\u{dfffe}', '\u{e0fff}'),
    ('\u{efffe}', '\u{effff}'),
    ('\u{ffffe}', '\u{fffff}'),
    ('\u{10fffe}', '\u{10ffff}'),
];

/// Whether `c` is shown as `U+XXXX` rather than as itself
/// ([`CODE_POINT_SHOWN`]).
pub fn shown_as_code_point(c: char) -> bool {
    // ASCII, the most text by far, without the search: its controls but
    // tab and line feed (the table's first three ranges).
    if c.is_ascii() {
        return matches!(c, '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}');
    }
    CODE_POINT_SHOWN
        .binary_search_by(|(a, b)| {
            if *b < c {
                std::cmp::Ordering::Less
            } else if *a > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Truncates `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((cut, _)) => {
            let keep = s[..cut]
                .char_indices()
                .nth(max.saturating_sub(1))
                .map_or(cut, |(i, _)| i);
            format!("{}…", &s[..keep])
        }
    }
}

/// Removes terminal escape sequences (CSI, OSC, and other `ESC` sequences)
/// and every other control character except newline and tab, so untrusted
/// text cannot move the cursor, recolour, retitle or hide lines; every
/// other character [`shown_as_code_point`] names (invisible or
/// direction-changing) is written as `U+XXXX`, as the HTML page shows it.
pub fn strip_terminal_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(c) = s[i..].chars().next() {
        if c == '\u{1b}' {
            i += escape_len(s, i);
            continue;
        }
        i += c.len_utf8();
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => out.push(' '),
            c if c.is_control() => {}
            c if shown_as_code_point(c) => {
                use std::fmt::Write as _;
                let _ = write!(out, "U+{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The length in bytes of the terminal escape sequence that starts with
/// the `ESC` at byte `at` of `s`: CSI (parameters, then one final byte
/// 0x40–0x7E), OSC/DCS/SOS/PM/APC (until BEL or `ESC \`), or `ESC` and one
/// character. Unterminated sequences run to the end of `s`.
pub(crate) fn escape_len(s: &str, at: usize) -> usize {
    let rest = &s[at..];
    let mut chars = rest.char_indices().skip(1).peekable();
    let end = |i: usize, c: char| i + c.len_utf8();
    match chars.next() {
        None => rest.len().min(1),
        Some((_, '[')) => {
            for (j, c) in chars {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    return end(j, c);
                }
            }
            rest.len()
        }
        Some((_, ']' | 'P' | 'X' | '^' | '_')) => {
            while let Some((j, c)) = chars.next() {
                if c == '\u{7}' {
                    return end(j, c);
                }
                if c == '\u{1b}' {
                    if let Some(&(k, '\\')) = chars.peek() {
                        return end(k, '\\');
                    }
                }
            }
            rest.len()
        }
        Some((i, c)) => end(i, c),
    }
}

/// Makes untrusted text safe for one terminal line: escapes stripped,
/// whitespace runs (newlines included) folded to one space, bounded to `max`
/// characters.
pub fn one_line(s: &str, max: usize) -> String {
    let clean = strip_terminal_escapes(s);
    let folded = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_chars(&folded, max)
}

/// As [`one_line`], but a text longer than `max` characters is shortened
/// in its middle, never at its end: an error chain reads from the general
/// (which target, which URL, how many attempts) to the cause (the OS error
/// and its number), and a reader needs both. Long words (a URL, a name)
/// are shortened first, each keeping its two ends; then, if still too long,
/// the middle of the text goes. At most `max` characters; each cut is
/// marked `…`.
pub fn one_line_ends(s: &str, max: usize) -> String {
    /// A word longer than this is shortened to it first.
    const WORD: usize = 40;
    let clean = strip_terminal_escapes(s);
    let words: Vec<&str> = clean.split_whitespace().collect();
    let folded = words.join(" ");
    if folded.chars().count() <= max {
        return folded;
    }
    let shortened = words
        .iter()
        .map(|w| middle_cut(w, WORD, "…"))
        .collect::<Vec<_>>()
        .join(" ");
    middle_cut(&shortened, max, " … ")
}

/// `s` in at most `max` characters: its two ends around `mark`, or a plain
/// truncation when `max` leaves no room for both.
fn middle_cut(s: &str, max: usize, mark: &str) -> String {
    let count = s.chars().count();
    if count <= max {
        return s.to_string();
    }
    let room = max.saturating_sub(mark.chars().count());
    if room < 2 {
        return truncate_chars(s, max);
    }
    let head = room / 2;
    let tail = room - head;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(count - tail).collect();
    format!("{start}{mark}{end}")
}

/// The letter a small capital (`ᴀ`, `ꜱ`, `ᴋ`, and the kra `ĸ`) is drawn
/// as: NFKC keeps them and the skeleton maps few of them to ASCII.
pub fn small_capital(c: char) -> Option<char> {
    Some(match c {
        '\u{1D00}' => 'a',
        '\u{0299}' => 'b',
        '\u{1D04}' => 'c',
        '\u{1D05}' => 'd',
        '\u{1D07}' => 'e',
        '\u{A730}' => 'f',
        '\u{0262}' => 'g',
        '\u{029C}' => 'h',
        '\u{026A}' => 'i',
        '\u{1D0A}' => 'j',
        '\u{1D0B}' | '\u{0138}' => 'k',
        '\u{029F}' => 'l',
        '\u{1D0D}' => 'm',
        '\u{0274}' => 'n',
        '\u{1D0F}' => 'o',
        '\u{1D18}' => 'p',
        '\u{A7AF}' => 'q',
        '\u{0280}' => 'r',
        '\u{A731}' => 's',
        '\u{1D1B}' => 't',
        '\u{1D1C}' => 'u',
        '\u{1D20}' => 'v',
        '\u{1D21}' => 'w',
        '\u{028F}' => 'y',
        '\u{1D22}' => 'z',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    /// The ASCII shortcut of `shown_as_code_point` answers as the table.
    #[test]
    fn ascii_shortcut_agrees_with_the_table() {
        for b in 0u8..0x80 {
            let c = char::from(b);
            let in_table = CODE_POINT_SHOWN.iter().any(|(a, z)| *a <= c && c <= *z);
            assert_eq!(super::shown_as_code_point(c), in_table, "{b:#x}");
        }
    }

    use super::*;

    #[test]
    fn blank_is_whitespace_and_invisible_only() {
        assert!(is_blank(" \n\t"));
        assert!(is_blank("\u{200b}\u{feff} \u{2060}\u{ad}"));
        assert!(!is_blank("\u{200b}a"));
    }

    #[test]
    fn one_line_ends_keeps_the_cause_at_the_end() {
        let long = format!(
            "request to http://{}.example/v1 failed after 4 attempt(s): tcp connect error: Connection refused (os error 111)",
            "a".repeat(400)
        );
        let cut = one_line_ends(&long, 300);
        assert!(cut.chars().count() <= 300, "{cut}");
        // The long word (the URL) lost its middle; the rest is whole.
        assert!(cut.starts_with("request to http://aaa"), "{cut}");
        assert!(cut.contains("a…a"), "{cut}");
        assert!(
            cut.contains(".example/v1 failed after 4 attempt(s)"),
            "{cut}"
        );
        assert!(cut.ends_with("Connection refused (os error 111)"), "{cut}");
        // Too long even then: the middle goes, both ends stay.
        let cut = one_line_ends(&long, 60);
        assert_eq!(cut.chars().count(), 60, "{cut}");
        assert!(cut.starts_with("request to http://aaa"), "{cut}");
        assert!(cut.ends_with("(os error 111)"), "{cut}");
        assert!(cut.contains(" … "), "{cut}");
        // Short text is only folded; tiny bounds still hold.
        assert_eq!(one_line_ends("a\n b", 300), "a b");
        for max in 1..8 {
            assert!(one_line_ends(&long, max).chars().count() <= max, "{max}");
        }
    }

    #[test]
    fn strips_csi_osc_and_controls() {
        let s = "a\u{1b}[31mred\u{1b}[0m b\u{1b}]0;title\u{7} c\u{1b}]8;;http://x\u{1b}\\d\r\u{8}e\u{9b}f";
        assert_eq!(strip_terminal_escapes(s), "ared b cd ef");
    }

    #[test]
    fn invisible_characters_are_written_as_code_points() {
        // Tag characters (ASCII smuggling), a Hangul filler, a variation
        // selector and a bidirectional override: all marked, none raw.
        let s = "id\u{E0078}\u{3164}\u{FE0F}\u{202E}x";
        assert_eq!(strip_terminal_escapes(s), "idU+E0078U+3164U+FE0FU+202Ex");
        assert_eq!(one_line("same-id\u{E0041}", 80), "same-idU+E0041");
        let sorted = CODE_POINT_SHOWN.windows(2).all(|w| w[0].1 < w[1].0);
        assert!(sorted && CODE_POINT_SHOWN.iter().all(|(a, b)| a <= b));
        for c in ['\u{E0000}', '\u{E0FFF}', '\u{1D17A}', '\u{AD}', '\u{0}'] {
            assert!(shown_as_code_point(c), "{c:?}");
        }
        for c in ['\n', '\t', 'a', 'é', '\u{1F600}', '\u{E1000}'] {
            assert!(!shown_as_code_point(c), "{c:?}");
        }
    }

    #[test]
    fn truncation_is_char_safe() {
        assert_eq!(truncate_chars("héllo", 10), "héllo");
        assert_eq!(truncate_chars("héllo", 3), "hé…");
        assert_eq!(truncate_chars("", 0), "");
    }

    #[test]
    fn one_line_folds() {
        assert_eq!(one_line("a\n\n  b\tc", 100), "a b c");
    }
}
