//! Near misses between tool names, and between side-effect kinds: a check
//! naming `send_money` and a trace calling `functions.send_money`,
//! `sendMoney`, `send_money()`, `SEND MONEY`, `tools/send_money/` or
//! `ѕend_money` (a Cyrillic `ѕ`); a check on `email_sent` and an adapter
//! reporting `Email-Sent` or `smtp.email_sent`. Exact names decide what
//! matches; a near miss means a check cannot tell whether what it sees is
//! what it names, so `tool_called`, `tool_sequence` and `side_effect`
//! answer undetermined there instead of "not detected". A typo (a name a
//! small edit away, `delete_acount`) is no near miss — tools with similar
//! names are common — but is named in rationales and run warnings
//! (docs/predicates.md, "Near misses").

use unicode_security::confusable_detection::skeleton;

/// One way two names can differ without naming different things.
type Step = (&'static str, fn(&str) -> String);

/// Tool names: applied in this order, each to the result of the previous
/// ones; the result is the name's canonical form.
const STEPS: [Step; 7] = [
    ("whitespace or invisible characters", strip_invisible),
    ("a trailing ()", strip_call_parens),
    ("leading or trailing separators", trim_separators),
    ("a namespace prefix", last_segment),
    ("word separators or camelCase", drop_separators),
    ("case", lower),
    ("confusable characters", confusable_skeleton),
];

/// Side-effect kinds: the same steps but the namespace one, which kinds
/// apply on whole names instead ([`side_effect_kind_near_miss`]).
const KIND_STEPS: [Step; 6] = [STEPS[0], STEPS[1], STEPS[2], STEPS[4], STEPS[5], STEPS[6]];

/// Characters that separate the words of a name (`send_money`,
/// `send-money`, `email.sent`, `bank/send`, `bank:send`).
const WORD_SEPARATORS: [char; 5] = ['_', '-', '.', '/', ':'];

/// What separates a namespace from a name.
const SEPARATORS: [&str; 4] = [".", "/", ":", "__"];

/// Why `called` is a near miss of `checked`: `Some("differs only by a
/// namespace prefix")` when the two differ but have the same canonical
/// form — whitespace and invisible characters dropped, a trailing `()`
/// dropped, leading and trailing separators (`_ - . / :`) trimmed, a
/// namespace prefix dropped (everything up to the last `.`, `/`, `:` or
/// `__`), word separators dropped (so `send_money`, `send-money`,
/// `sendMoney` and `SendMoney` meet), case folded and confusable
/// characters mapped to their UTS #39 skeleton; `None` when they are
/// equal or truly different.
pub fn tool_name_near_miss(checked: &str, called: &str) -> Option<String> {
    near_miss(&STEPS, checked, called)
}

/// Why side-effect kind `reported` is a near miss of `checked` (the rule
/// of [`tool_name_near_miss`], for `side_effect`): the two differ but are
/// the same kind once whitespace, invisible characters, a trailing `()`,
/// leading and trailing separators and word separators are dropped, case
/// is folded and confusable characters are mapped to their skeleton —
/// or once one of them loses a namespace prefix the other lacks
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
                let mut named = vec![STEPS[3].0];
                if tail != short {
                    named.extend(steps_named(&KIND_STEPS, tail, short));
                }
                return Some(format!("differs only by {}", named.join(" and ")));
            }
        }
    }
    None
}

/// How many edits (insertions, deletions, substitutions, transpositions of
/// neighbours) apart the canonical forms of tool names `checked` and
/// `called` are, when they are a likely typo of each other: 1, or 2 for
/// canonical names of at least 10 characters (`delete_acount` for `delete_account`);
/// `None` when equal, a near miss ([`tool_name_near_miss`]) or farther
/// apart. A typo is not a near miss — tools with similar names are
/// common (`read_file`, `read_files`) and a check stays exact — but
/// rationales and run warnings name it.
pub fn tool_name_typo(checked: &str, called: &str) -> Option<usize> {
    typo(&STEPS, checked, called)
}

/// [`tool_name_typo`] for side-effect kinds (`email_snet` for
/// `email_sent`).
pub fn side_effect_kind_typo(checked: &str, reported: &str) -> Option<usize> {
    typo(&KIND_STEPS, checked, reported)
}

fn typo(steps: &[Step], checked: &str, called: &str) -> Option<usize> {
    if key(steps, checked, None) == key(steps, called, None) {
        return None;
    }
    // Edits are counted on what a reader sees, before the confusable
    // skeleton (which writes `m` as `rn`).
    let seen = &steps[..steps.len() - 1];
    let (a, b) = (key(seen, checked, None), key(seen, called, None));
    let shorter = a.chars().count().min(b.chars().count());
    let most = match shorter {
        0..=3 => 0,
        4..=9 => 1,
        _ => 2,
    };
    let d = strsim::osa_distance(&a, &b);
    (d <= most).then_some(d)
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

/// The name after every step but `skip`. Full keys are remembered per
/// thread: grading compares the same few names for every call of every
/// trace, and the confusable skeleton is the costly step.
fn key(steps: &[Step], name: &str, skip: Option<usize>) -> String {
    let fold = || {
        steps
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .fold(name.to_string(), |s, (_, (_, f))| f(&s))
    };
    if skip.is_some() {
        return fold();
    }
    let slot = KEY_LISTS
        .iter()
        .position(|l| l.len() == steps.len() && l.iter().zip(steps).all(|(a, b)| a.0 == b.0));
    let Some(slot) = slot else {
        return fold();
    };
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        if let Some(Some(k)) = keys.get(name).map(|ks| &ks[slot]) {
            return k.to_string();
        }
        let k = fold();
        if keys.len() >= KEYS_HELD {
            keys.clear();
        }
        keys.entry(name.into()).or_default()[slot] = Some(k.as_str().into());
        k
    })
}

/// The step lists whose full keys are remembered: tool names and kinds,
/// each with and without the confusable skeleton ([`typo`]).
const KEY_LISTS: [&[Step]; 4] = [
    &STEPS,
    &[STEPS[0], STEPS[1], STEPS[2], STEPS[3], STEPS[4], STEPS[5]],
    &KIND_STEPS,
    &[STEPS[0], STEPS[1], STEPS[2], STEPS[4], STEPS[5]],
];

/// How many names a thread remembers before it forgets them all.
const KEYS_HELD: usize = 4096;

type Keys = std::collections::HashMap<Box<str>, [Option<Box<str>>; 4]>;

thread_local! {
    static KEYS: std::cell::RefCell<Keys> = std::cell::RefCell::new(Keys::new());
}

fn strip_invisible(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !is_invisible(*c))
        .collect()
}

/// Characters a name can carry unseen: the one table of invisible and
/// direction-changing characters ([`pactum_core::text::shown_as_code_point`]).
fn is_invisible(c: char) -> bool {
    pactum_core::text::shown_as_code_point(c)
}

/// `send_money()` is how some frameworks and most prose write a call.
fn strip_call_parens(s: &str) -> String {
    s.strip_suffix("()").unwrap_or(s).to_string()
}

/// `send_money_`, `_send_money`, `tools/send_money/`.
fn trim_separators(s: &str) -> String {
    let t = s.trim_matches(WORD_SEPARATORS.as_slice());
    // A name of separators only keeps them: there is nothing else.
    if t.is_empty() {
        s.to_string()
    } else {
        t.to_string()
    }
}

/// `send_money`, `send-money`, `sendMoney` (with case folded after) meet.
fn drop_separators(s: &str) -> String {
    let t: String = s.chars().filter(|c| !WORD_SEPARATORS.contains(c)).collect();
    if t.is_empty() {
        s.to_string()
    } else {
        t
    }
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

    fn uncached(steps: &[Step], name: &str) -> String {
        steps.iter().fold(name.to_string(), |s, (_, f)| f(&s))
    }

    proptest::proptest! {
        /// A remembered key is the key: asked twice, through every step
        /// list, and after the thread forgets.
        #[test]
        fn remembered_keys_are_the_keys(names in proptest::collection::vec("[a-zA-Z_.:/ ()\\-ѕАаеοԁ\u{200B}]{0,16}", 1..40)) {
            for list in KEY_LISTS {
                for name in &names {
                    proptest::prop_assert_eq!(key(list, name, None), uncached(list, name));
                    proptest::prop_assert_eq!(key(list, name, None), uncached(list, name));
                }
            }
            KEYS.with(|k| k.borrow_mut().clear());
            for name in &names {
                proptest::prop_assert_eq!(key(&STEPS, name, None), uncached(&STEPS, name));
            }
        }
    }

    #[test]
    fn the_remembered_names_are_bounded() {
        for i in 0..KEYS_HELD + 10 {
            let name = format!("tool_{i}");
            assert_eq!(key(&STEPS, &name, None), uncached(&STEPS, &name));
        }
        assert!(KEYS.with(|k| k.borrow().len()) <= KEYS_HELD);
    }

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
            ("send_money", "send_money()", "a trailing ()"),
            (
                "send_money",
                "send_money_",
                "leading or trailing separators",
            ),
            (
                "send_money",
                "_send_money",
                "leading or trailing separators",
            ),
            ("send_money", "send-money", "word separators or camelCase"),
            ("send_money", "sendmoney", "word separators or camelCase"),
            (
                "send_money",
                "sendMoney",
                "word separators or camelCase and case",
            ),
            (
                "send_money",
                "SendMoney",
                "word separators or camelCase and case",
            ),
            (
                "sendMoney",
                "send_money",
                "word separators or camelCase and case",
            ),
            (
                "send_money",
                "SEND MONEY",
                "whitespace or invisible characters and word separators or camelCase and case",
            ),
            (
                "send_money",
                "tools/send_money/",
                "leading or trailing separators and a namespace prefix",
            ),
            (
                "send_money",
                "functions.send_money()",
                "a trailing () and a namespace prefix",
            ),
            (
                "send_money",
                "Bank::SendMoney()",
                "a trailing () and a namespace prefix and word separators or camelCase and case",
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
            ("send_money", "send_monkey"),
            ("send_money", "money"),
            // `.` before a name is a namespace: tool `money` of `send`.
            ("send_money", "send.money"),
            ("send_money", "send_money(x)"),
            ("read_file", "read_files"),
            ("delete_account", "delete_acount"),
            ("a", "b"),
            ("_", "-"),
            ("send_money", "___"),
        ] {
            assert_eq!(
                tool_name_near_miss(checked, called),
                None,
                "{checked} {called}"
            );
        }
    }

    #[test]
    fn typos_are_a_small_edit_away_and_no_near_miss() {
        for (checked, called, d) in [
            ("delete_account", "delete_acount", Some(1)),
            ("delete_account", "delete_acconut", Some(1)),
            ("delete_account", "Delete_Acount", Some(1)),
            ("delete_account", "delete_acunt", Some(2)),
            ("read_file", "read_files", Some(1)),
            ("send_money", "send_monee", Some(1)),
            ("refund", "refunds", Some(1)),
            ("refund", "refnd", Some(1)),
            ("refund", "refnds", None),
            ("refund", "rfnds", None),
            ("delete_account", "delete_a", None),
            ("get", "set", None),
            ("send_money", "send_money", None),
            ("send_money", "sendMoney", None),
            ("send_money", "get_balance", None),
        ] {
            assert_eq!(tool_name_typo(checked, called), d, "{checked} {called}");
        }
        assert_eq!(side_effect_kind_typo("email_sent", "email_snet"), Some(1));
        assert_eq!(side_effect_kind_typo("email_sent", "Email-Sent"), None);
    }
}
