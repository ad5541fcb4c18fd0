//! Near misses between tool names: a check naming `send_money` and a
//! trace calling `functions.send_money`, `Send_Money`, `send_money ` or
//! `ѕend_money` (a Cyrillic `ѕ`). Exact names decide what matches; a near
//! miss means a check cannot tell whether the call it sees is the tool it
//! names, so `tool_called` answers undetermined there instead of "no such
//! call" (docs/predicates.md, "Near misses").

use unicode_security::confusable_detection::skeleton;

/// One way two tool names can differ without naming different tools.
type Step = (&'static str, fn(&str) -> String);

/// Applied in this order, each to the result of the previous ones.
const STEPS: [Step; 4] = [
    ("whitespace or invisible characters", strip_invisible),
    ("a namespace prefix", last_segment),
    ("case", lower),
    ("confusable characters", confusable_skeleton),
];

/// Why `called` is a near miss of `checked`: `Some("differs only by a
/// namespace prefix")` when the two differ but would be the same name
/// once whitespace and invisible characters are dropped, a namespace
/// prefix is dropped (everything up to the last `.`, `/`, `:` or `__`),
/// case is folded and confusable characters are mapped to their UTS #39
/// skeleton; `None` when they are equal or truly different.
pub fn tool_name_near_miss(checked: &str, called: &str) -> Option<String> {
    if checked == called || key(checked, None) != key(called, None) {
        return None;
    }
    // A step is named when the names stay apart without it; when no single
    // step is needed (two steps each bridge the gap), the first ones that
    // changed either name, in order, until the names met.
    let mut named: Vec<&str> = (0..STEPS.len())
        .filter(|&skip| key(checked, Some(skip)) != key(called, Some(skip)))
        .map(|i| STEPS[i].0)
        .collect();
    if named.is_empty() {
        let (mut a, mut b) = (checked.to_string(), called.to_string());
        for (name, f) in STEPS {
            let (na, nb) = (f(&a), f(&b));
            if na != a || nb != b {
                named.push(name);
            }
            (a, b) = (na, nb);
            if a == b {
                break;
            }
        }
    }
    Some(format!("differs only by {}", named.join(" and ")))
}

/// The name after every step but `skip`.
fn key(name: &str, skip: Option<usize>) -> String {
    STEPS
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .fold(name.to_string(), |s, (_, (_, f))| f(&s))
}

fn strip_invisible(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !is_invisible(*c))
        .collect()
}

/// Format characters a name can carry unseen (zero-width spaces and
/// joiners, bidirectional marks, the soft hyphen, the byte-order mark).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{FEFF}'
    )
}

fn last_segment(s: &str) -> String {
    let cut = [".", "/", ":", "__"]
        .iter()
        .filter_map(|sep| s.rfind(sep).map(|i| i + sep.len()))
        .max()
        .unwrap_or(0);
    let tail = &s[cut..];
    // A name that ends in a separator has no segment to keep.
    if tail.is_empty() {
        s.to_string()
    } else {
        tail.to_string()
    }
}

fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// The UTS #39 skeleton (case was folded by the step before, so `ЅEND`
/// with a Cyrillic `Ѕ` and `send` meet).
fn confusable_skeleton(s: &str) -> String {
    skeleton(s).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_name_how_they_differ() {
        let cases = [
            ("send_money", "functions.send_money", "a namespace prefix"),
            ("send_money", "default_api.send_money", "a namespace prefix"),
            ("send_money", "bank/send_money", "a namespace prefix"),
            ("send_money", "mcp__bank__send_money", "a namespace prefix"),
            ("send_money", "bank:send_money", "a namespace prefix"),
            ("functions.send_money", "send_money", "a namespace prefix"),
            ("send_money", "Send_Money", "case"),
            ("send_money", "SEND_MONEY", "case"),
            (
                "send_money",
                " send_money",
                "whitespace or invisible characters",
            ),
            (
                "send_money",
                "send_money\n",
                "whitespace or invisible characters",
            ),
            (
                "send_money",
                "send\u{200B}_money",
                "whitespace or invisible characters",
            ),
            // Cyrillic а (U+0430) and о (U+043E)
            ("send_money", "send_m\u{043E}ney", "confusable characters"),
            ("transfer", "tr\u{0430}nsfer", "confusable characters"),
            // fullwidth letters
            (
                "send_money",
                "\u{FF53}\u{FF45}\u{FF4E}\u{FF44}_money",
                "confusable characters",
            ),
            (
                "send_money",
                "Functions.Send_M\u{043E}ney",
                "a namespace prefix and case and confusable characters",
            ),
        ];
        for (checked, called, why) in cases {
            assert_eq!(
                tool_name_near_miss(checked, called),
                Some(format!("differs only by {why}")),
                "{checked:?} vs {called:?}"
            );
        }
    }

    #[test]
    fn equal_or_different_names_are_no_near_miss() {
        for (checked, called) in [
            ("send_money", "send_money"),
            ("send_money", "send_money_v2"),
            ("send_money", "get_balance"),
            ("send_money", "send-money"),
            ("send_money", "sendmoney"),
            ("read_file", "read_files"),
            ("a", "b"),
        ] {
            assert_eq!(
                tool_name_near_miss(checked, called),
                None,
                "{checked} {called}"
            );
        }
    }
}
