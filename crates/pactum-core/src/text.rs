//! Untrusted text (SPEC §4): everything a trace, a target or a judge
//! supplies is bounded in length and stripped of terminal escape sequences
//! before it reaches a terminal. Pure string functions; they never fail.

/// The longest untrusted excerpt a summary line shows, in characters.
pub const SUMMARY_CHARS: usize = 240;

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
/// text cannot move the cursor, recolour, retitle or hide lines.
pub fn strip_terminal_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    // CSI: parameters and intermediates, then one final byte 0x40–0x7E.
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => {
                    chars.next();
                    // OSC/DCS/SOS/PM/APC: until BEL or ST (ESC \).
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            },
            // C1 CSI and OSC introducers, and the rest of C0/C1. A carriage
            // return could overwrite a line: it becomes a space.
            '\n' | '\t' => out.push(c),
            '\r' => out.push(' '),
            c if c.is_control() => {}
            // Bidirectional overrides can reorder what a reader sees.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Makes untrusted text safe for one terminal line: escapes stripped,
/// whitespace runs (newlines included) folded to one space, bounded to `max`
/// characters.
pub fn one_line(s: &str, max: usize) -> String {
    let clean = strip_terminal_escapes(s);
    let folded = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_chars(&folded, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_csi_osc_and_controls() {
        let s = "a\u{1b}[31mred\u{1b}[0m b\u{1b}]0;title\u{7} c\u{1b}]8;;http://x\u{1b}\\d\r\u{8}e\u{9b}f";
        assert_eq!(strip_terminal_escapes(s), "ared b cd ef");
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
