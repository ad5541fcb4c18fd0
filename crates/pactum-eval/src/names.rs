//! Near misses between tool names, and between side-effect kinds: a check
//! naming `send_money` and a trace calling `functions.send_money`,
//! `Send_Money`, `send_money ` or `ѕend_money` (a Cyrillic `ѕ`); a check on
//! `email_sent` and an adapter reporting `Email_Sent` or `smtp.email_sent`.
//! Exact names decide what matches; a near miss means a check cannot tell
//! whether what it sees is what it names, so `tool_called`,
//! `tool_sequence` and `side_effect` answer undetermined there instead of
//! "not detected" (docs/predicates.md, "Near misses").

use unicode_security::confusable_detection::skeleton;

/// One way two names can differ without naming different things.
type Step = (&'static str, fn(&str) -> String);

/// Tool names: applied in this order, each to the result of the previous
/// ones.
const STEPS: [Step; 4] = [
    ("whitespace or invisible characters", strip_invisible),
    ("a namespace prefix", last_segment),
    ("case", lower),
    ("confusable characters", confusable_skeleton),
];

/// Side-effect kinds: the same steps but the namespace one, which kinds
/// apply on whole names instead ([`side_effect_kind_near_miss`]).
const KIND_STEPS: [Step; 3] = [STEPS[0], STEPS[2], STEPS[3]];

/// What separates a namespace from a name.
const SEPARATORS: [&str; 4] = [".", "/", ":", "__"];

/// Why `called` is a near miss of `checked`: `Some("differs only by a
/// namespace prefix")` when the two differ but would be the same name
/// once whitespace and invisible characters are dropped, a namespace
/// prefix is dropped (everything up to the last `.`, `/`, `:` or `__`),
/// case is folded and confusable characters are mapped to their UTS #39
/// skeleton; `None` when they are equal or truly different.
pub fn tool_name_near_miss(checked: &str, called: &str) -> Option<String> {
    near_miss(&STEPS, checked, called)
}

/// Why side-effect kind `reported` is a near miss of `checked` (the rule
/// of [`tool_name_near_miss`], for `side_effect`): the two differ but are
/// the same kind once whitespace and invisible characters are dropped,
/// case is folded and confusable characters are mapped to their skeleton
/// — or once one of them loses a namespace prefix the other lacks
/// (`smtp.email_sent` for `email_sent`). Unlike tool names, two kinds
/// under different namespaces are different kinds (`email.sent` and
/// `sms.sent`): a kind's namespace names its category, and comparing last
/// segments alone would confuse them. `None` when equal or different.
pub fn side_effect_kind_near_miss(checked: &str, reported: &str) -> Option<String> {
    if checked == reported {
        return None;
    }
    if let Some(why) = near_miss(&KIND_STEPS, checked, reported) {
        return Some(why);
    }
    for (long, short) in [(reported, checked), (checked, reported)] {
        for tail in tails(long) {
            if key(&KIND_STEPS, tail, None) == key(&KIND_STEPS, short, None) {
                let mut named = vec![STEPS[1].0];
                if tail != short {
                    named.extend(steps_named(&KIND_STEPS, tail, short));
                }
                return Some(format!("differs only by {}", named.join(" and ")));
            }
        }
    }
    None
}

/// Every non-empty name after a separator in `name`, longest first.
fn tails(name: &str) -> Vec<&str> {
    let mut cuts: Vec<usize> = SEPARATORS
        .iter()
        .flat_map(|sep| name.match_indices(sep).map(move |(i, _)| i + sep.len()))
        .filter(|&i| i < name.len())
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts.into_iter().map(|i| &name[i..]).collect()
}

/// Near miss under `steps`: equal once every step is applied, and not
/// equal as written.
fn near_miss(steps: &[Step], checked: &str, called: &str) -> Option<String> {
    if checked == called || key(steps, checked, None) != key(steps, called, None) {
        return None;
    }
    Some(format!(
        "differs only by {}",
        steps_named(steps, checked, called).join(" and ")
    ))
}

/// The steps that bridge two names that meet under `steps`: each step
/// without which they stay apart; when no single step is needed (two
/// steps each bridge the gap), the first ones that changed either name,
/// in order, until the names met.
fn steps_named(steps: &[Step], a: &str, b: &str) -> Vec<&'static str> {
    let mut named: Vec<&str> = (0..steps.len())
        .filter(|&skip| key(steps, a, Some(skip)) != key(steps, b, Some(skip)))
        .map(|i| steps[i].0)
        .collect();
    if named.is_empty() {
        let (mut a, mut b) = (a.to_string(), b.to_string());
        for (name, f) in steps {
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
    named
}

/// The name after every step but `skip`.
fn key(steps: &[Step], name: &str, skip: Option<usize>) -> String {
    steps
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
    let cut = SEPARATORS
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
