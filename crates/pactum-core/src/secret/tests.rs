use super::*;
use proptest::prelude::*;
use serde_json::json;

const KEY: &str = "sk-live-4f8A/b+c=Zq9";

fn r(secrets: &[&str]) -> Redactor {
    Redactor::new(secrets).expect("usable secrets")
}

#[test]
fn short_and_empty_values_are_refused_and_values_are_trimmed() {
    assert_eq!(check_secret("  \n"), Err(SecretError::Empty));
    assert_eq!(check_secret("abc"), Err(SecretError::TooShort { chars: 3 }));
    assert_eq!(
        check_secret(" 1234567 "),
        Err(SecretError::TooShort { chars: 7 })
    );
    assert_eq!(check_secret("12345678\n"), Ok("12345678"));
    assert_eq!(
        check_secret("ééééééé"),
        Err(SecretError::TooShort { chars: 7 })
    );
    assert!(Redactor::new(["long-enough-1", "short"]).is_err());
    let red = r(&["  long-enough-1\n"]);
    assert_eq!(red.redact("a long-enough-1 b"), "a [redacted] b");
    assert_eq!(format!("{red:?}"), "Redactor(1 secret(s))");
}

#[test]
fn nothing_to_redact_borrows() {
    let red = r(&[KEY]);
    assert!(matches!(red.redact("plain text"), Cow::Borrowed(_)));
    assert!(matches!(Redactor::default().redact(KEY), Cow::Borrowed(_)));
    assert!(Redactor::default().is_empty());
    // Pieces of the key shorter than a fragment.
    let near = "sk-live-4. A/b+c=Z, q9 \\u0073k-live";
    assert_eq!(red.redact(near), near);
}

const LEAKY: &str = "Qz7pLm4xRt9vWk2sHn6dYb3cJf8g";

/// Whether `out` still shows `FRAGMENT_CHARS` characters in a row of `key`.
fn shows_a_fragment(out: &str, key: &str) -> Option<String> {
    let chars: Vec<char> = key.chars().collect();
    chars
        .windows(FRAGMENT_CHARS)
        .map(|w| w.iter().collect::<String>())
        .find(|piece| out.contains(piece.as_str()))
}

#[test]
fn a_key_spread_over_separators_or_formatting_is_redacted_whole() {
    let red = r(&[LEAKY]);
    let (a, b) = LEAKY.split_at(14);
    for spread in [
        format!("{a}\n{b}"),
        format!("{a} {b}"),
        format!("{a}\r\n  {b}"),
        format!("**{}**{}", &LEAKY[..10], &LEAKY[10..]),
        format!("`{a}`_{b}_"),
        format!("{a}\u{200b}{b}"),
        format!("{a}\u{2060}{b}"),
        format!("{a}\u{ad}{b}"),
        format!("{a}-{b}"),
        format!("{a}\u{2014}{b}"),
        format!("> {a}\n> {b}"),
        format!("| {a} | {b} |"),
        LEAKY.chars().map(|c| format!("{c} ")).collect::<String>(),
        LEAKY
            .chars()
            .map(|c| format!("{c}\u{200b}"))
            .collect::<String>(),
    ] {
        let text = format!("Your key: {spread}. Keep it safe.");
        let out = red.redact(&text).into_owned();
        assert!(out.starts_with("Your key: "), "{out}");
        assert!(out.ends_with(". Keep it safe."), "{out}");
        assert_eq!(shows_a_fragment(&out, LEAKY), None, "{spread:?} -> {out}");
        assert!(out.contains(REDACTED), "{out}");
    }
}

#[test]
fn a_changed_character_or_a_long_part_is_redacted_around_it() {
    let red = r(&[LEAKY]);
    let mut chars: Vec<char> = LEAKY.chars().collect();
    chars[13] = 'X';
    let changed: String = chars.iter().collect();
    assert_eq!(
        red.redact(&format!("key {changed} end")),
        format!("key {REDACTED}X{REDACTED} end")
    );
    // Every part of 8 characters or more, wherever it starts.
    for len in FRAGMENT_CHARS..=LEAKY.len() {
        for start in 0..=LEAKY.len() - len {
            let part = &LEAKY[start..start + len];
            assert_eq!(
                red.redact(&format!("(({part}))")),
                format!("(({REDACTED}))")
            );
        }
    }
    // Seven characters are not a fragment.
    let seven = &LEAKY[3..10];
    assert_eq!(red.redact(seven), seven);
    // A change every 7 characters leaves no fragment to find: what is
    // shown then holds no 8 characters of the key either.
    let mut sparse: Vec<char> = LEAKY.chars().collect();
    for i in (6..sparse.len()).step_by(7) {
        sparse[i] = '#';
    }
    let sparse: String = sparse.into_iter().collect();
    assert_eq!(shows_a_fragment(&red.redact(&sparse), LEAKY), None);
}

#[test]
fn separators_inside_a_secret_do_not_hide_it() {
    // A key that holds separators itself is compared without them too.
    let red = r(&["sk-proj-A1b2_C3d4-E5f6"]);
    for text in ["sk proj A1b2 C3d4 E5f6", "skprojA1b2C3d4E5f6", "A1b2-C3d4"] {
        assert_eq!(red.redact(text), REDACTED, "{text}");
    }
    // Ordinary text around and between is kept.
    assert_eq!(red.redact("see A1b2 - then"), "see A1b2 - then");
}

#[test]
fn bare_offsets_map_back() {
    let b = Bare::of("a b\u{200b}c**d");
    assert_eq!(b.text, "abcd");
    let origins: Vec<usize> = (0..4).map(|i| b.origin(i)).collect();
    assert_eq!(origins, vec![0, 2, 6, 9]);
    let plain = Bare::of("abcd");
    assert!(matches!(plain.text, Cow::Borrowed(_)));
    assert_eq!(plain.origin(3), 3);
}

/// Each character of `s` written as `f` makes it.
fn each(s: &str, f: impl Fn(char) -> String) -> String {
    s.chars().map(f).collect()
}

#[test]
fn every_encoding_is_seen_through() {
    let red = r(&[KEY]);
    let forms = [
        KEY.to_string(),
        // JSON \u escapes, every character or a few, one or more backslashes.
        each(KEY, |c| format!("\\u{:04x}", c as u32)),
        format!("\\u0073{}", &KEY[1..]),
        each(KEY, |c| format!("\\\\u{:04X}", c as u32)),
        // Backslash escapes: JSON's \/ and one before every character.
        KEY.replace('/', "\\/"),
        each(KEY, |c| format!("\\{c}")),
        each(KEY, |c| format!("\\x{:02x}", c as u32)),
        // Percent-encoding, upper and lower case, and only the reserved ones.
        each(KEY, |c| format!("%{:02X}", c as u32)),
        each(KEY, |c| format!("%{:02x}", c as u32)),
        KEY.replace('/', "%2F")
            .replace('+', "%2B")
            .replace('=', "%3D"),
        // Nested: a JSON escape of a percent escape.
        KEY.replace('/', "\\u00252F"),
        // HTML references.
        each(KEY, |c| format!("&#{};", c as u32)),
        each(KEY, |c| format!("&#x{:x};", c as u32)),
        KEY.replace('+', "&plus;"),
        // Invisible things between the characters.
        each(KEY, |c| format!("{c}\u{1b}[0m")),
        each(KEY, |c| format!("{c}\u{200b}")),
        each(KEY, |c| format!("{c}\u{1b}]0;title\u{7}")),
        "sk-live\u{202e}-4f8A/b+c=Zq9".to_string(),
    ];
    for form in forms {
        let text = format!("before \"{form}\" after");
        let out = red.redact(&text);
        assert_eq!(out, "before \"[redacted]\" after", "{form:?}");
    }
}

#[test]
fn a_secret_with_quotes_or_backslashes_is_found_json_escaped() {
    let secret = "pa\"ss\\word-1";
    let red = r(&[secret]);
    let json = serde_json::to_string(&json!({ "k": secret })).expect("json");
    assert_eq!(red.redact(&json), "{\"k\":\"[redacted]\"}");
    assert_eq!(red.redact(secret), REDACTED);
}

#[test]
fn overlapping_and_adjacent_secrets_are_replaced_whole() {
    let red = r(&["abcdefgh", "efghijkl", "zzzzzzzz"]);
    assert_eq!(red.redact("xabcdefghijklx"), "x[redacted]x");
    assert_eq!(red.redact("zzzzzzzzabcdefgh"), "[redacted][redacted]");
    assert_eq!(red.len(), 3);
    let both = r(&["abcdefgh"])
        .with(&r(&["zzzzzzzz", "abcdefgh"]))
        .expect("union");
    assert_eq!(both.len(), 2);
}

#[test]
fn values_are_redacted_keys_included_and_nothing_is_dropped() {
    let red = r(&[KEY, "another-secret"]);
    let mut v = json!({
        KEY: [format!("x {KEY}"), 1, {"k": "\\u0073k-live-4f8A/b+c=Zq9"}],
        "another-secret": true,
        "[redacted]": "already there",
        "plain": "text",
    });
    assert!(red.redact_value(&mut v), "something was replaced");
    assert_eq!(
        v,
        json!({
            "[redacted]": ["x [redacted]", 1, {"k": "[redacted]"}],
            "[redacted] (2)": true,
            "[redacted] (3)": "already there",
            "plain": "text",
        })
    );
    let text = v.to_string();
    assert!(
        !text.contains("sk-live") && !text.contains("another"),
        "{text}"
    );
}

#[test]
fn redacting_a_value_says_whether_it_replaced_anything() {
    let red = r(&[KEY]);
    for (v, want) in [
        (json!("plain"), false),
        (json!({"a": [1, "b", null, {"c": true}]}), false),
        (json!("[redacted] written by the target"), false),
        (json!([1, 2, KEY]), true),
        (json!({"deep": {"deeper": [format!("a{KEY}b")]}}), true),
        (json!({KEY: 1}), true),
    ] {
        let mut v2 = v.clone();
        assert_eq!(red.redact_value(&mut v2), want, "{v}");
        assert_eq!(v2 != v, want, "{v}");
    }
    let mut v = json!(KEY);
    assert!(!Redactor::default().redact_value(&mut v));
}

fn call(name: &str, arguments: serde_json::Value) -> ToolCall {
    ToolCall {
        id: None,
        name: name.into(),
        arguments,
        result: None,
        error: None,
    }
}

/// Each field of an answer, alone holding the key, names its channel and
/// no other; a target writing the marker itself names none.
#[test]
fn an_answer_names_the_channels_it_redacted_field_by_field() {
    let red = r(&[KEY]);
    let effect = |kind: &str, details| SideEffect {
        kind: kind.into(),
        details,
    };
    let plain_call = || call("lookup", json!({"q": "x"}));
    type Case = (Option<String>, Vec<ToolCall>, Vec<SideEffect>, Vec<Channel>);
    let cases: Vec<Case> = vec![
        (
            Some("nothing here".into()),
            vec![plain_call()],
            vec![],
            vec![],
        ),
        (
            Some("[redacted] by the target itself".into()),
            vec![],
            vec![],
            vec![],
        ),
        (
            Some(format!("the key is {KEY}")),
            vec![plain_call()],
            vec![],
            vec![Channel::Response],
        ),
        (
            None,
            vec![call(KEY, json!({}))],
            vec![],
            vec![Channel::ToolCalls],
        ),
        (
            None,
            vec![plain_call(), call("f", json!({"k": KEY}))],
            vec![],
            vec![Channel::ToolCalls],
        ),
        (
            None,
            vec![call("f", json!({KEY: 1}))],
            vec![],
            vec![Channel::ToolCalls],
        ),
        (
            None,
            vec![ToolCall {
                id: Some(KEY.into()),
                ..plain_call()
            }],
            vec![],
            vec![Channel::ToolCalls],
        ),
        (
            None,
            vec![ToolCall {
                result: Some(json!({"token": KEY})),
                ..plain_call()
            }],
            vec![],
            vec![Channel::ToolCalls],
        ),
        (
            None,
            vec![ToolCall {
                error: Some(format!("bad key {KEY}")),
                ..plain_call()
            }],
            vec![],
            vec![Channel::ToolCalls],
        ),
        (
            None,
            vec![],
            vec![effect("email_sent", json!({"body": KEY}))],
            vec![Channel::SideEffects],
        ),
        (
            None,
            vec![],
            vec![effect(KEY, json!({}))],
            vec![Channel::SideEffects],
        ),
        (
            Some(KEY.into()),
            vec![call("f", json!([KEY]))],
            vec![effect("e", json!(KEY))],
            vec![Channel::Response, Channel::ToolCalls, Channel::SideEffects],
        ),
    ];
    for (text, calls, effects, want) in cases {
        let want: BTreeSet<Channel> = want.into_iter().collect();
        let (mut t, mut c, mut e) = (text.clone(), calls.clone(), effects.clone());
        assert_eq!(red.redact_answer(t.as_mut(), &mut c, &mut e), want);
        let all = format!("{t:?}{c:?}{e:?}");
        assert!(!all.contains(KEY), "{all}");
        // Redacted once, nothing is left to find.
        assert!(red.redact_answer(t.as_mut(), &mut c, &mut e).is_empty());
    }
    assert!(Redactor::default()
        .redact_answer(Some(&mut KEY.to_string()), &mut [], &mut [])
        .is_empty());
}

/// An answer redacted whole before it was read: the channels come from
/// reading the raw answer again; one that cannot be read names every
/// channel; an answer with no secret names none (and is not read again).
#[test]
fn a_whole_answer_redacted_before_reading_names_its_channels() {
    let red = r(&[KEY]);
    let read = |raw: &str| -> Option<RawAnswer> {
        let v: serde_json::Value = serde_json::from_str(raw).ok()?;
        Some((
            v["text"].as_str().map(str::to_string),
            v["calls"]
                .as_array()?
                .iter()
                .map(|c| call("f", c.clone()))
                .collect(),
            Vec::new(),
        ))
    };
    let channels = |raw: &str| {
        let redacted = red.redact(raw).into_owned();
        red.channels_in_raw(raw, &redacted, read)
    };
    let text_only = format!(r#"{{"text": "here: {KEY}", "calls": []}}"#);
    assert_eq!(channels(&text_only), [Channel::Response].into());
    // JSON-escaped in the raw answer, plain once read.
    let escaped: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let in_call = format!(
        r#"{{"text": "ok", "calls": [{{"k": "{}"}}]}}"#,
        escaped.replace("\\\\", "\\")
    );
    assert_eq!(channels(&in_call), [Channel::ToolCalls].into(), "{in_call}");
    // In a field nothing reads: no channel.
    let elsewhere = format!(r#"{{"text": "ok", "calls": [], "id": "{KEY}"}}"#);
    assert_eq!(channels(&elsewhere), BTreeSet::new());
    // Written across the answer's syntax: where cannot be told.
    let across = format!(r#"{{"text": "ok", "calls": []}} {KEY}"#);
    assert_eq!(
        channels(&across),
        [Channel::Response, Channel::ToolCalls, Channel::SideEffects].into()
    );
    let clean = r#"{"text": "[redacted]", "calls": []}"#;
    assert_eq!(
        red.channels_in_raw(clean, clean, |_| panic!("not read again")),
        BTreeSet::new()
    );
}

#[test]
fn excerpts_redact_before_they_cut() {
    let red = r(&[KEY]);
    for cut in 0..40 {
        let text = format!("{}{KEY} and more", "x".repeat(cut));
        for max in 1..60 {
            let e = red.excerpt(&text, max);
            assert!(!e.contains("sk-live-"), "cut {cut} max {max}: {e}");
            assert!(!e.contains("Zq9"), "cut {cut} max {max}: {e}");
        }
    }
}

#[test]
fn escapes_that_decode_to_nothing_useful_are_left_alone() {
    let red = r(&[KEY]);
    for text in [
        "\\",
        "\\u12",
        "\\uD800",
        "\\uD800\\u0041",
        "%",
        "%4",
        "%C3",
        "%C3%",
        "&#;",
        "&#xZZ;",
        "&",
        "\u{1b}",
        "\u{1b}[",
        "a\\",
        "100% sure & \\o/",
    ] {
        assert_eq!(red.redact(text), text, "{text:?}");
    }
    // Decoding never panics on odd boundaries of multi-byte text.
    for text in ["é\\uéé", "%éé", "&#é;", "\\xé", "%F0%9F%98", "%F0%9F%98%80"] {
        let _ = red.redact(text);
    }
}

#[test]
fn url_credentials_are_found_and_hidden() {
    let u = url_secrets("https://bob:s3cr%2Ft-pass@api.example.com:8443/v1?api-version=2024&api_key=sk-abc%2Bdef&x#frag");
    assert_eq!(
        u.shown,
        "https://[redacted]@api.example.com:8443/v1?api-version=2024&api_key=[redacted]&x#frag"
    );
    // bob:s3cr/t-pass, as a Basic authorization header carries it.
    assert_eq!(
        u.values,
        vec!["s3cr/t-pass", "Ym9iOnMzY3IvdC1wYXNz", "sk-abc+def"]
    );
    assert_eq!(url_secrets("http://tok@h/").values, vec!["tok", "dG9rOg=="]);
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    let raw = "https://bob:s3cr%2Ft-pass@api.example.com:8443/v1?api-version=2024&api_key=sk-abc%2Bdef&x#frag";
    let masked = url_secrets(raw).masked(raw);
    assert_eq!(
        masked,
        "https://*****************@api.example.com:8443/v1?api-version=2024&api_key=************&x#frag"
    );
    assert_eq!(masked.chars().count(), raw.chars().count());
    // A query value that looks like a key, whatever its name.
    let u = url_secrets("http://h/chat?q=a8Fk2LmQ9zR4tY7uW1xC3vB6nM0pQ5sD&n=1");
    assert_eq!(u.shown, "http://h/chat?q=[redacted]&n=1");
    // Nothing to hide.
    for plain in [
        "http://127.0.0.1:11434/v1",
        "http://host/a@b?x=1&token",
        "http://host/{{ conversation_id }}?session={{ id }}",
        "http://127.0.0.1:8080/chat?token={{ env.TOKEN }}",
        "http://{{ user }}@host/chat?key={% if a %}b{% endif %}",
        "not a url",
    ] {
        let u = url_secrets(plain);
        assert_eq!(u.shown, plain);
        assert!(u.values.is_empty(), "{plain}");
    }
    for name in [
        "key",
        "API_KEY",
        "access-token",
        "client_secret",
        "Password",
        "sig",
        "auth",
    ] {
        assert!(is_secret_query_name(name), "{name}");
    }
    for name in ["model", "api-version", "q", "author", "page"] {
        assert!(!is_secret_query_name(name), "{name}");
    }
}

/// How one character of a key may be written.
fn encode(c: char, how: u8) -> String {
    let n = c as u32;
    match how % 10 {
        0..=2 => c.to_string(),
        3 => format!("\\u{n:04x}"),
        4 => format!("\\\\u{n:04X}"),
        5 => format!("%{n:02X}"),
        6 => format!("&#{n};"),
        // A backslash before a letter or digit starts another escape
        // (`\x0A`, `\u…`, `\n`): only punctuation is escaped this way.
        7 if !c.is_ascii_alphanumeric() => format!("\\{c}"),
        7 => c.to_string(),
        8 => format!("{c}\u{1b}[1m"),
        _ => format!("\\u0025{n:02x}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// However a key is encoded, character by character, and wherever it
    /// sits in text, nothing of it survives: not the key, not 8 of its
    /// characters in a row, not in any decoded view (redacting again
    /// changes nothing).
    #[test]
    fn no_encoding_of_a_key_survives(
        key in "[A-Za-z0-9/+=_-]{8,40}",
        hows in proptest::collection::vec(any::<u8>(), 40),
        before in "[ .,;:!?()*]{0,30}",
        after in "[ .,;:!?()*]{0,30}",
        max in 1usize..120,
    ) {
        let red = Redactor::new([&key]).expect("key");
        let encoded: String = key.chars().zip(&hows).map(|(c, h)| encode(c, *h)).collect();
        let text = format!("{before}{encoded}{after}");
        let out = red.redact(&text).into_owned();
        prop_assert_eq!(&out, &format!("{before}{REDACTED}{after}"));
        prop_assert_eq!(red.redact(&out).into_owned(), out.clone());
        let e = red.excerpt(&text, max);
        let chars: Vec<char> = key.chars().collect();
        for w in chars.windows(FRAGMENT_CHARS) {
            let piece: String = w.iter().collect();
            prop_assert!(!e.contains(&piece), "{} in {}", piece, e);
        }
    }

    /// A key cut anywhere by any run of separators leaves no fragment.
    #[test]
    fn no_spreading_of_a_key_survives(
        key in "[A-Za-z0-9/+=]{8,40}",
        cuts in proptest::collection::vec((0usize..40, "[ \n\t*_`|>\u{200b}\u{2014}-]{1,3}"), 0..6),
        max in 1usize..120,
    ) {
        let red = Redactor::new([&key]).expect("key");
        let mut chars: Vec<String> = key.chars().map(String::from).collect();
        for (at, sep) in &cuts {
            let i = at % chars.len();
            chars[i] = format!("{sep}{}", chars[i]);
        }
        let text = format!("Key: {}!", chars.concat());
        let out = red.redact(&text).into_owned();
        prop_assert!(shows_a_fragment(&out, &key).is_none(), "{}", out);
        let e = red.excerpt(&text, max);
        prop_assert!(shows_a_fragment(&e, &key).is_none(), "{}", e);
    }

    /// Text that holds no key is returned as it is.
    #[test]
    fn text_without_a_key_is_unchanged(
        key in "[A-Za-z0-9]{8,20}",
        text in "[^A-Za-z0-9]{0,60}",
    ) {
        let red = Redactor::new([&key]).expect("key");
        prop_assert_eq!(red.redact(&text).into_owned(), text);
    }
}

/// A key in another ASCII case is the same credential (hex keys are read
/// either way): redacted whole, and its fragments too.
#[test]
fn a_key_in_another_case_is_redacted() {
    let key = "3f9a1b2c4d5e6f7081726354a1b2c3d4e5f60718";
    let red = Redactor::new([key]).expect("a valid secret");
    let upper = key.to_ascii_uppercase();
    for text in [
        format!("Here: {upper}"),
        format!("Here: {}", &upper[4..20]),
        format!("Here: {}\n{}", &upper[..20], &upper[20..]),
    ] {
        let out = red.redact(&text);
        for w in upper.as_bytes().windows(8) {
            let w = std::str::from_utf8(w).expect("ASCII");
            assert!(!out.to_ascii_uppercase().contains(w), "{w} in {out}");
        }
    }
}

/// A recorded trace redacted before grading: the answer's channels are
/// recorded, the input messages are cleaned, and a trace without the key
/// is left as it was.
#[test]
fn a_recorded_trace_is_redacted_with_its_channels() {
    let key = "Qz7pLm4xRt9vWk2sHn6dYb3cJf8g";
    let red = Redactor::new([key]).expect("a valid secret");
    let mut t: crate::trace::Trace = serde_json::from_value(serde_json::json!({
        "id": "t", "observability": "tool_calls",
        "turns": [{"input": [{"role": "user", "content": format!("my key is {key}")}],
                   "response": format!("Your key: {key}"),
                   "tool_calls": [{"name": "log", "arguments": {"k": key}}]},
                  {"input": [{"role": "user", "content": "thanks"}], "response": "You're welcome."}]
    }))
    .expect("a trace");
    assert!(red.redact_trace(&mut t));
    let text = serde_json::to_string(&t).expect("JSON");
    assert!(!text.contains(&key[..8]), "{text}");
    assert_eq!(
        t.turns[0].redacted.iter().copied().collect::<Vec<_>>(),
        vec![Channel::Response, Channel::ToolCalls]
    );
    assert!(t.turns[1].redacted.is_empty());
    let mut clean = t.clone();
    assert!(!red.redact_trace(&mut clean));
}

/// Key-shaped tokens: a known prefix, a long enough tail with a digit;
/// words that share a prefix are no keys.
#[test]
fn key_tokens_in_text() {
    let text =
        "debug: OPENAI_API_KEY=sk-test-SECRET1234567890abcdef, \"ghp_ABCdef1234567890xyz\". \
                sk-learn is a library; sk-learn-documentation-page too; ask-me1234567890abc; \
                AIzaSyA1234567890abcdefgh. again sk-test-SECRET1234567890abcdef.";
    assert_eq!(
        key_tokens(text),
        vec![
            "sk-test-SECRET1234567890abcdef".to_string(),
            "ghp_ABCdef1234567890xyz".to_string(),
            "AIzaSyA1234567890abcdefgh".to_string(),
        ]
    );
    assert!(key_tokens("sk-1234567").is_empty());
    assert!(key_tokens("").is_empty());
    let red = Redactor::new(key_tokens(text)).expect("keys");
    assert!(!red.redact(text).contains("SECRET1234"));
}

/// A key inside a longer token (an id built from one) is found from the
/// prefix on; a prefix inside a word is not a start.
#[test]
fn key_tokens_inside_ids() {
    let text = "conv-sk-proj-Abc123Def456Ghi789Jkl012Mno345 run_ghp_ABCdef1234567890xyz.log \
                trace.AKIAABCDEFGHIJ123456 task-sk-1234567 desk1234567890abcdef";
    assert_eq!(
        key_tokens(text),
        vec![
            "sk-proj-Abc123Def456Ghi789Jkl012Mno345".to_string(),
            "ghp_ABCdef1234567890xyz.log".to_string(),
            "AKIAABCDEFGHIJ123456".to_string(),
        ]
    );
    let red = Redactor::new(key_tokens(text)).expect("keys");
    let out = red.redact(text);
    assert!(out.starts_with("conv-[redacted]"), "{out}");
    assert!(
        !out.contains("Abc123") && !out.contains("ABCdef12"),
        "{out}"
    );
}

/// A key glued to other characters is found when its prefix is one no
/// word holds; a short prefix inside a word is not a key.
#[test]
fn key_tokens_glued_to_other_characters() {
    let text = "convsk-proj-Abc123Def456Ghi789Jkl012Mno345 123ghp_ABCdef1234567890xyz \
                Chatsk-ant-api03-Zyx987Wvu654Tsr321 \
                risk-assessment-2024-report-v12345 bookshelf_inventory_2024_version \
                weekly_highs_2024_summary EURASIA_FOUNDATION_2024_REPORT";
    assert_eq!(
        key_tokens(text),
        vec![
            "sk-proj-Abc123Def456Ghi789Jkl012Mno345".to_string(),
            "ghp_ABCdef1234567890xyz".to_string(),
            "sk-ant-api03-Zyx987Wvu654Tsr321".to_string(),
        ]
    );
    let out = Redactor::new(key_tokens(text))
        .expect("keys")
        .redact(text)
        .into_owned();
    assert!(out.starts_with("conv[redacted] 123[redacted]"), "{out}");
    // Prefixes words hold too, glued only with a key's long tail.
    let gho = format!("gho_{}", "aB3".repeat(12));
    let asia = "ASIA2B3C4D5E6F7G8H9J".to_string();
    let legacy = format!("sk-{}", "Ab1".repeat(16));
    let router = "sk-or-v1-0123456789abcdef0123".to_string();
    let text = format!(
        "id{gho} x{asia} conv{legacy} r{router} highs_2024_summary_v1 EURASIA_2024_REPORT_X"
    );
    assert_eq!(key_tokens(&text), vec![gho, asia, legacy, router]);
}

/// The one redaction rule: known secrets, named key variables as they are,
/// ambient `*_API_KEY` variables only when they look like keys, and the
/// key-shaped tokens of the text to be shown.
#[test]
fn the_redaction_rule_holds_every_source_of_keys() {
    let known = r(&["judge-key-0123456789"]);
    let env = EnvKeys {
        named: vec!["named-value-abcdefgh\n".into(), "short".into()],
        ambient: vec![
            "AbCdEf0123456789GhIjKlMnOp".into(),
            "not a key, just words here".into(),
            "true".into(),
        ],
    };
    let text = "the agent wrote sk-proj-Zx9876543210abcd and left";
    let red = redaction_rule(&known, &env, [text]).expect("rule");
    assert_eq!(red.len(), 4, "{red:?}");
    for secret in [
        "judge-key-0123456789",
        "named-value-abcdefgh",
        "AbCdEf0123456789GhIjKlMnOp",
        "sk-proj-Zx9876543210abcd",
    ] {
        assert_eq!(red.redact(secret), REDACTED, "{secret}");
    }
    assert_eq!(
        red.redact("not a key, just words here"),
        "not a key, just words here"
    );
    // Nothing known, nothing set, nothing key-shaped: nothing redacted.
    let none =
        redaction_rule(&Redactor::default(), &EnvKeys::default(), ["plain text"]).expect("rule");
    assert!(none.is_empty());
}

#[test]
fn key_variables_are_the_usual_credential_ones() {
    for (name, is) in [
        ("OPENAI_API_KEY", true),
        ("anthropic_api_key", true),
        ("GITHUB_TOKEN", true),
        ("AWS_SECRET_ACCESS_KEY", true),
        ("HF_TOKEN", true),
        ("DB_PASSWORD", true),
        ("_API_KEY", true),
        ("API_KEY", true),
        ("_KEY", false),
        ("KEY", false),
        ("OPENAI_API_KEYS", false),
        ("APIKEY", true),
        ("OPENAI_APIKEY", true),
        ("API_KEY_2", true),
        ("MISTRAL_KEY_PROD", true),
        ("DB_PASSWD", true),
        ("KEYBOARD_LAYOUT", false),
        ("TOKENIZERS_PARALLELISM", false),
        ("PATH", false),
    ] {
        assert_eq!(is_key_var(name), is, "{name}");
    }
}

/// Every string of a trace is searched, an escaped line break before a
/// token included (searching the trace's JSON text would miss it).
#[test]
fn trace_key_tokens_reads_every_string() {
    let trace: crate::trace::Trace = serde_json::from_value(json!({
        "id": "t",
        "observability": "full",
        "turns": [{
            "input": [{"role": "user", "content": "use\nsk-in-0123456789abcd"}],
            "response": "ok ghp_ABCdef1234567890xyz",
            "tool_calls": [{"name": "f", "arguments": {"sk-arg-0123456789abcd": "x"},
                            "result": {"k": "AIzaSyA1234567890abcdefgh"}}]
        }],
        "metadata": {"note": "sk-meta-0123456789abcd"}
    }))
    .expect("a trace");
    let mut found = trace_key_tokens(&trace);
    found.sort();
    assert_eq!(
        found,
        vec![
            "AIzaSyA1234567890abcdefgh",
            "ghp_ABCdef1234567890xyz",
            "sk-arg-0123456789abcd",
            "sk-in-0123456789abcd",
            "sk-meta-0123456789abcd",
        ]
    );
}

/// A key written with an invisible character inside it (a zero-width
/// space, a soft hyphen, a bidirectional mark, a byte order mark) or
/// wrapped over two lines is still a key-shaped token: the rule strips
/// invisible format characters, and one line break between two token
/// characters, before cutting tokens; the redactor then replaces the
/// original span, the invisible characters and the break included.
#[test]
fn key_tokens_see_through_invisible_characters_and_wraps() {
    let key = "sk-abc123def456ghi789jkl";
    for text in [
        "token: sk-abc\u{200b}123def456ghi789jkl end".to_string(),
        "token: sk-abc123\u{ad}def456ghi789jkl end".to_string(),
        "token: s\u{200d}k-abc123def456ghi789\u{feff}jkl end".to_string(),
        "token: sk-abc123\u{2060}def456\u{202e}ghi789jkl end".to_string(),
        "token: sk-abc123def\n456ghi789jkl end".to_string(),
        "token: sk-abc123def\r\n   456ghi789jkl end".to_string(),
    ] {
        let found = key_tokens(&text);
        assert_eq!(found, vec![key.to_string()], "{text:?}");
        let red = Redactor::new(found).expect("keys");
        let shown = red.redact(&text);
        let bare: String = shown
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        for part in ["abc123", "def456", "ghi789"] {
            assert!(!bare.contains(part), "{text:?} -> {shown:?}");
        }
        assert!(
            shown.starts_with("token: ") && shown.ends_with(" end"),
            "{shown:?}"
        );
    }
    // A blank line is a paragraph break, not a wrap: the word after it is
    // no part of the key.
    assert_eq!(
        key_tokens("sk-abc123def456ghi789jkl\n\nNext"),
        vec![key.to_string()]
    );
}

/// A key written through Markdown escapes, character references or
/// emphasis inside it is found, and redacted where it is written; AWS and
/// Hugging Face keys are recognised.
#[test]
fn key_tokens_see_through_escapes_references_and_emphasis() {
    let key = "sk_live_4f8Ab2c9Zq7w";
    for written in [
        r"sk\_live\_4f8Ab2c9Zq7w",
        "sk&#95;live&#95;4f8Ab2c9Zq7w",
        "sk&#x5f;live_4f8Ab2c9Zq7w",
        "sk_live_4f8A**b2c9**Zq7w",
        "sk_live_4f8A`b2c9`Zq7w",
    ] {
        let text = format!("the agent printed {written} here");
        let tokens = key_tokens(&text);
        assert!(tokens.iter().any(|t| t == key), "{written}: {tokens:?}");
        let red = Redactor::new(tokens).expect("keys");
        let shown = red.redact(&text);
        assert!(!shown.contains("4f8A"), "{written}: {shown}");
        assert!(!shown.contains("Zq7w"), "{written}: {shown}");
    }
    // HTML5 reads a numeric reference without its `;`, and a browser shows
    // these as the key: each is found, and redacted where it is written.
    for written in [
        "sk&#45proj1234567890abcdefXYZ",
        "sk&#x2Dproj1234567890abcdefXYZ",
        "s&#107-proj1234567890abcdefXYZ",
        "sk&hyphenproj1234567890abcdefXYZ",
        "sk&minus;proj1234567890abcdefXYZ",
    ] {
        let text = format!("| {written} | |");
        let tokens = key_tokens(&text);
        assert!(
            tokens
                .iter()
                .any(|t| t.ends_with("proj1234567890abcdefXYZ")),
            "{written}: {tokens:?}"
        );
        let shown = Redactor::new(tokens).expect("keys").redact(&text);
        assert!(!shown.contains("abcdefXYZ"), "{written}: {shown}");
    }
    let dashed = "sk&#45;proj&#45;4f8Ab2c9Zq7wXy";
    let tokens = key_tokens(dashed);
    assert_eq!(tokens, vec!["sk-proj-4f8Ab2c9Zq7wXy".to_string()]);
    assert!(!Redactor::new(tokens)
        .expect("keys")
        .redact(dashed)
        .contains("Zq7w"));
    for k in [
        "AKIAIOSFODNN7EXAMPLE",
        "ASIAY34FZKBOKMUTVV7A",
        "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH",
        "hf_0123456789abcdefghij",
    ] {
        assert_eq!(
            key_tokens(&format!("key: {k}.")),
            vec![k.to_string()],
            "{k}"
        );
    }
    // Words that start like one are not keys.
    assert!(key_tokens("AKIAN hf_hub_download huggingface").is_empty());
}

/// A bearer credential and a JSON Web Token are keys wherever they are
/// written; the words around them are not.
#[test]
fn bearer_credentials_and_json_web_tokens_are_keys() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc123def456";
    let text = format!("curl -H 'Authorization: Bearer {jwt}' https://x/ and later token={jwt}.");
    assert_eq!(key_tokens(&text), vec![jwt.to_string()]);
    let opaque = "AbCdEfGhIjKlMnOp+/QrStUv==";
    assert_eq!(
        key_tokens(&format!("Authorization: bearer\t{opaque}\n")),
        vec![opaque.to_string()]
    );
    // Too short, another word ending in "bearer", no token after it.
    for plain in [
        "Bearer abc",
        "the flag-bearer arrived",
        "a Bearer token is needed",
        "Bearer: none",
        "eyJhbGciOi.x",
    ] {
        let found = key_tokens(plain);
        assert!(
            found.iter().all(|t| t.len() >= KEY_TOKEN_MIN_TAIL),
            "{plain}: {found:?}"
        );
    }
    assert!(key_tokens("the flag-bearer arrived with a Bearer").is_empty());
    let rule =
        redaction_rule(&Redactor::default(), &EnvKeys::default(), [text.as_str()]).expect("rule");
    let shown = rule.redact(&text);
    assert!(!shown.contains("eyJzdWIi"), "{shown}");
}

/// The usual hosted-service token shapes are keys.
#[test]
fn hosted_service_tokens_are_keys() {
    for key in [
        "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn",
        "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
        "xoxa-2-1234567890-abcdefghij",
        "npm_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gH3jK5",
        "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAw",
        "rk_live_51H8abcdefGHIJKL0123",
        "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",
        "dop_v1_0123456789abcdef0123456789abcdef",
        "shpat_0123456789abcdef0123456789abcdef",
        "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",
        "gsk_Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "xai-Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "pplx-Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "r8_Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "nvapi-Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "csk-Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "fw_Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "whsec_Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "GOCSPX-Qw3rTy7UiOp9AsDfGhJkL2zX",
        "ya29.a0AfH6SMBx3kQw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "LTAI5tQw3rTy7UiOp9AsDfGh",
        "glsa_Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4_1a2b3c4d",
        "hvs.CAESIQw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "lin_api_Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "sq0atp-Qw3rTy7UiOp9AsDfGhJkL2",
        "ATATT3xFfGF0Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
        "dapi0123456789abcdef0123456789abcdef",
        "AGE-SECRET-KEY-1QW3RTY7UIOP9ASDFGHJKL2ZXCVBNM4",
    ] {
        let text = format!("the token is {key} — keep it safe");
        assert_eq!(key_tokens(&text), vec![key.to_string()], "{key}");
        assert!(looks_like_key(key), "{key}");
    }
    // Words that start like one are not.
    for word in ["SG.html", "npm_install", "pypi-upload", "ghs_notes"] {
        assert!(key_tokens(word).is_empty(), "{word}");
    }
}

#[test]
fn named_credentials_aws_secrets_and_url_passwords_are_keys() {
    for (text, key) in [
        (
            "note api_key=Zx81kLmQ02pWeRt5YuIo end",
            "Zx81kLmQ02pWeRt5YuIo",
        ),
        ("?access_token=Zx81kLmQ02pWeRt5&x=1", "Zx81kLmQ02pWeRt5"),
        ("password: Pa55w0rdPa55w0rd", "Pa55w0rdPa55w0rd"),
        (
            "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Zx81kLmQ02pWeRt5YuIo==;",
            "Zx81kLmQ02pWeRt5YuIo==",
        ),
        (
            "see https://u:Zx81kLmQ02pWeRt5YuIo@h.example/",
            "Zx81kLmQ02pWeRt5YuIo",
        ),
        (
            "aws wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY here",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
    ] {
        assert!(
            key_tokens(text).contains(&key.to_string()),
            "{text}: {:?}",
            key_tokens(text)
        );
    }
    // Names and short or plain values are not.
    for text in [
        "the api_key= field",
        "password: see below",
        "sort_key=name",
        "https://example.org/a/b",
    ] {
        assert!(
            key_tokens(text).is_empty(),
            "{text}: {:?}",
            key_tokens(text)
        );
    }
}

#[test]
fn a_credential_variable_written_in_the_text_is_redacted_however_short() {
    let env = EnvKeys {
        named: vec![],
        ambient: vec![
            "Zq9vLp2wXk7Rt4Yb3Nm8".into(),
            "hunter2hunter2hunter2".into(),
            "Pa55w0rdPa55w0rd".into(),
            "name".into(),
        ],
    };
    let text = "env1 Zq9vLp2wXk7Rt4Yb3Nm8 env2 hunter2hunter2hunter2 env3 Pa55w0rdPa55w0rd name";
    let r = redaction_rule(&Redactor::default(), &env, [text]).expect("rule");
    let shown = r.redact(text);
    for v in [
        "Zq9vLp2wXk7Rt4Yb3Nm8",
        "hunter2hunter2hunter2",
        "Pa55w0rdPa55w0rd",
    ] {
        assert!(!shown.contains(v), "{shown}");
    }
    assert!(shown.contains("name"), "{shown}");
}

/// The runs found a block at a time are those of a plain scan, for every
/// text of up to 12 bytes of token and other bytes and every length bound
/// up to 8.
#[test]
fn long_runs_are_every_run_that_long() {
    for len in 0..=12u32 {
        for bits in 0..(1u32 << len) {
            let text: String = (0..len)
                .map(|i| if bits >> i & 1 == 1 { 'a' } else { ' ' })
                .collect();
            for min in 1..=8 {
                let plain: Vec<&str> = runs(&text, TOKEN).filter(|r| r.len() >= min).collect();
                assert_eq!(long_runs(&text, TOKEN, min), plain, "{text:?} {min}");
            }
        }
    }
}

/// Many candidates (found through one automaton) are kept exactly as
/// comparing each with every key before it keeps them: nested, repeated
/// and overlapping ones included.
#[test]
fn many_candidates_are_kept_as_one_by_one() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..200 {
        let pool: Vec<String> = (0..40)
            .map(|_| {
                let len = 8 + (next() % 10) as usize;
                (0..len)
                    .map(|_| ['a', 'b', '1'][(next() % 3) as usize])
                    .collect()
            })
            .collect();
        let keys: Vec<String> = pool.iter().take((next() % 5) as usize).cloned().collect();
        let candidates: Vec<&str> = (0..17 + (next() % 30) as usize)
            .map(|_| pool[(next() % pool.len() as u64) as usize].as_str())
            .collect();
        let mut naive: Vec<String> = keys.clone();
        for c in &candidates {
            if !naive.iter().any(|t| t.contains(c)) {
                naive.push(c.to_string());
            }
        }
        let mut found = Found::default();
        for k in keys {
            found.push(k);
        }
        found.push_unheld(candidates);
        assert_eq!(found.keys, naive);
    }
}

/// A text quoting many distinct keys has each found once, the named
/// ones too.
#[test]
fn many_keys_are_each_found_once() {
    let text: String = (0..5_000)
        .map(|i| format!("sk-proj-{i:06}abcdefghijkl api_key={i:06}zzzzzzzz9 "))
        .collect();
    let keys = key_tokens(&text);
    assert_eq!(keys.len(), 10_000);
    assert_eq!(keys[0], "sk-proj-000000abcdefghijkl");
}

/// The gate folds only ASCII case, `K` and `ſ`: no other character is
/// the same letter as one of the credential names' under `(?i)`.
#[test]
fn credential_names_fold_only_ascii_kelvin_and_long_s() {
    let letters = regex::Regex::new(r"(?i)^[apikeytonscrwd]$").unwrap();
    let odd: Vec<char> = (0..=0x10FFFFu32)
        .filter_map(char::from_u32)
        .filter(|c| !c.is_ascii() && letters.is_match(c.encode_utf8(&mut [0; 4])))
        .collect();
    assert_eq!(odd, vec!['\u{17F}', '\u{212A}']);
}

/// Texts built from the pieces the named-credential pattern reads.
fn credential_text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "token",
        "TOKEN",
        "api",
        "_",
        "-",
        "key",
        "\u{212A}ey",
        "secret",
        "pa",
        "\u{17F}\u{17F}wd",
        "password",
        "pwd",
        "=",
        ":",
        "://",
        "@",
        "/",
        "\"",
        "'",
        " ",
        "\t",
        "\u{3000}",
        "\n",
        "a1b2c3d4",
        "x",
        "9",
        "Zx81kLmQ",
        ".",
        "~",
        "+",
        "é",
        "user",
        "\u{212A}",
        "\u{17F}",
    ]);
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// The gate never spares a text in which the pattern finds a value.
    #[test]
    fn the_named_credential_gate_spares_only_texts_without_one(text in credential_text()) {
        if !super::may_name_credential(&text) {
            prop_assert!(super::named_credentials(&text).is_empty(), "{text:?}");
        }
    }
}

#[test]
fn the_named_credential_gate_passes_each_spelling() {
    for text in [
        "api_key=Zx81kLmQ02",
        "API-KEY : 'Zx81kLmQ02'",
        "my\u{212A}ey... no; pa\u{17F}\u{17F}word\t=\u{3000}\"Zx81kLmQ02\"",
        "x://user:pa55w0rd@host",
        "TOKEN\"=Zx81kLmQ02",
    ] {
        assert!(super::may_name_credential(text), "{text:?}");
        assert!(!super::named_credentials(text).is_empty(), "{text:?}");
    }
    for text in [
        "Amount: 12345678",
        "https://example.org:8080/a",
        "token=abcdefghijk",
        "Date: 2024-01-01T00:00",
    ] {
        assert!(!super::may_name_credential(text), "{text:?}");
    }
}

/// The separator table is [`is_separator`] over ASCII.
#[test]
fn the_ascii_separator_table_is_is_separator() {
    for b in 0u8..128 {
        assert_eq!(
            super::ASCII_SEPARATOR[usize::from(b)],
            super::is_separator(char::from(b)),
            "{b:#x}"
        );
    }
}

/// The bare text as it was built a character at a time.
fn bare_by_chars(src: &str) -> (String, Vec<(usize, usize)>) {
    let mut text = String::new();
    let mut jumps = Vec::new();
    let mut skipped = false;
    for (i, c) in src.char_indices() {
        if super::is_separator(c) {
            skipped = true;
            continue;
        }
        if skipped {
            jumps.push((text.len(), i));
            skipped = false;
        }
        text.push(c);
    }
    (text, jumps)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5_000))]

    /// Copying runs of kept characters whole builds the same bare text
    /// and jumps as a character at a time.
    #[test]
    fn a_bare_text_is_its_characters_without_separators(
        src in prop::collection::vec(prop::sample::select(vec![
            "a", "sk", "-", "_", "*", " ", "\n", "\u{200b}", "\u{2013}", "é", "\u{3000}",
            "\u{7f}", "|", ">", "9", "\u{180e}", "\u{34f}", "`", "~",
        ]), 0..30).prop_map(|p| p.concat())
    ) {
        let bare = super::Bare::of(&src);
        let (text, jumps) = bare_by_chars(&src);
        prop_assert_eq!(bare.text.as_ref(), text.as_str());
        prop_assert_eq!(bare.jumps, jumps);
    }
}

/// A key whose prefix (or any of it) is written in fullwidth letters or
/// with a hyphen drawn like `-` reads as the key: it is found, and
/// redacted where it is written.
#[test]
fn a_key_written_in_lookalike_characters_is_found_and_redacted() {
    let key = "sk-proj-Zx81kLmQ02pWeRt5YuIoAbCd";
    for text in [
        "key \u{FF53}\u{FF4B}-proj-Zx81kLmQ02pWeRt5YuIoAbCd end",
        "key sk\u{2010}proj\u{2011}Zx81kLmQ02pWeRt5YuIoAbCd end",
        "key sk\u{2212}proj-Zx81kLmQ02pWeRt5YuIoAbCd end",
        "key \u{FF53}\u{FF4B}\u{FF0D}\u{FF50}\u{FF52}\u{FF4F}\u{FF4A}-Zx81kLmQ02pWeRt5YuIoAbCd end",
    ] {
        let found = key_tokens(text);
        assert!(found.contains(&key.to_string()), "{text}: {found:?}");
        let r = Redactor::new(&found).expect("key");
        let shown = r.redact(text);
        assert!(!shown.contains("Zx81kLmQ"), "{shown}");
        assert!(
            shown.starts_with("key ") && shown.ends_with(" end"),
            "{shown}"
        );
    }
    // Prose with dashes and fullwidth punctuation holds no key.
    assert!(key_tokens("a range 2010\u{2013}2020 \u{FF08}note\u{FF09}").is_empty());
}

/// A key whose prefix is written with letters NFKC folds to `sk` (a long
/// s, mathematical letters), with look-alike letters (a Cyrillic dze,
/// small capitals, Lisu), or capitalised (`Sk-` opening a sentence,
/// `SK-PROJ-`) is the same secret: found, and redacted whole where it is
/// written.
#[test]
fn a_key_whose_prefix_is_folded_lookalike_or_capitalised_is_found_and_redacted() {
    const BODY: &str = "proj-Zq9Xw7Lm1234567890abcdef";
    for prefix in [
        "\u{017F}k-",
        "\u{1D42C}\u{1D424}-",
        "\u{0455}k-",
        "\u{A731}\u{1D0B}-",
        "\u{A4E2}k-",
        "s\u{043A}-",
        "Sk-",
        "SK-",
        "sK-",
    ] {
        for body in [BODY.to_string(), BODY.to_ascii_uppercase()] {
            let key = format!("{prefix}{body}");
            let text = format!("debug key {key} shown.");
            let found = key_tokens(&text);
            assert!(!found.is_empty(), "{text}: no key found");
            let r = Redactor::new(&found).expect("key");
            let shown = r.redact(&text);
            assert_eq!(shown, "debug key [redacted] shown.", "{text}: {found:?}");
            // Opening a sentence, and in a trace.
            let text = format!("{key} is the debug key.");
            let found = key_tokens(&text);
            let r = Redactor::new(&found).expect("key");
            assert_eq!(r.redact(&text), "[redacted] is the debug key.", "{found:?}");
        }
    }
    // The whole key in mathematical bold letters reads as the key too.
    let bold: String = "sk-proj-Zq9Xw7Lm1234567890abcdef"
        .chars()
        .map(|c| match c {
            'a'..='z' => char::from_u32(0x1D41A + (c as u32 - 'a' as u32)).unwrap_or(c),
            'A'..='Z' => char::from_u32(0x1D400 + (c as u32 - 'A' as u32)).unwrap_or(c),
            '0'..='9' => char::from_u32(0x1D7CE + (c as u32 - '0' as u32)).unwrap_or(c),
            c => c,
        })
        .collect();
    let text = format!("key {bold} end");
    let r = Redactor::new(key_tokens(&text)).expect("key");
    assert_eq!(r.redact(&text), "key [redacted] end");
    // Its hyphens drawn with a confusable of `-` or a raised or lowered
    // minus, at the prefix or inside.
    for dash in [
        '\u{02D7}', '\u{2043}', '\u{2796}', '\u{2CBA}', '\u{06D4}', '\u{207B}', '\u{208B}',
    ] {
        for key in [
            format!("sk{dash}proj-Zq9Xw7Lm1234567890abcdef"),
            format!("sk-proj{dash}Zq9Xw7Lm1234567890abcdef"),
        ] {
            let text = format!("debug key {key} shown.");
            let found = key_tokens(&text);
            assert!(!found.is_empty(), "{text:?}: no key found");
            let r = Redactor::new(&found).expect("key");
            assert_eq!(r.redact(&text), "debug key [redacted] shown.", "{text:?}");
        }
    }
    // Its underscore drawn as a dashed or wavy low line.
    for low in ['\u{FE4D}', '\u{FE4E}', '\u{FE4F}'] {
        for key in [
            format!("sk{low}proj_Zq9Xw7Lm1234567890abcdef"),
            format!("ghp{low}Zq9Xw7Lm1234567890abcdefABCDEF123456"),
        ] {
            let text = format!("debug key {key} shown.");
            let found = key_tokens(&text);
            assert!(!found.is_empty(), "{text:?}: no key found");
            let r = Redactor::new(&found).expect("key");
            assert_eq!(r.redact(&text), "debug key [redacted] shown.", "{text:?}");
        }
    }
}

/// Capitalised words and ids that only start like a key prefix, and text
/// in other scripts, hold no key.
#[test]
fn capitalised_words_and_other_scripts_hold_no_key() {
    for text in [
        "Skopje-Ohrid 2024 conference",
        "SK-Hynix reported results",
        "TASK-PROJ-2024-001234 is open",
        "RISK-ASSESSMENT-2024-Q3-DRAFT",
        "Skills: Rust, SQL, 2024-2025",
        "Москва и Санкт-Петербург, 2024 год",
        "東京と大阪、2024年のデータ",
        "Ωmega: ſtraße ſk",
    ] {
        assert!(
            key_tokens(text).is_empty(),
            "{text}: {:?}",
            key_tokens(text)
        );
    }
}

/// A long text read again is answered from the thread's memo: the keys
/// are the same on every read, and a text that differs by one byte is
/// scanned for its own.
#[test]
fn a_repeated_long_text_gives_the_same_keys_every_time() {
    let filler = "The agent read the policy and answered the user politely. ".repeat(8);
    let text = format!("{filler} key: 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 {filler}");
    assert!(text.len() >= 256);
    for _ in 0..4 {
        assert_eq!(
            key_tokens(&text),
            vec!["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".to_string()]
        );
    }
    let other = text.replace("Nm4", "Nm5");
    assert_eq!(
        key_tokens(&other),
        vec!["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".to_string()]
    );
    let clean = text.replace("tvly-", "tvly ");
    for _ in 0..3 {
        assert!(key_tokens(&clean).is_empty());
    }
}

/// Private keys, tokens of their own shapes and values after more
/// credential names are keys; ordinary text after such words is not.
#[test]
fn private_keys_shaped_tokens_and_more_credential_names_are_keys() {
    let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nQw3rTy7UiOp9AsDfGhJkL2zXcVbNm4Qw3rTy7UiOp9AsDfGhJk\n-----END PRIVATE KEY-----\n";
    // As written in a JSON string (`\n` written) and on lines of its own.
    for text in [
        format!(r#"{{"type": "service_account", "private_key": "{}"}}"#, pem.replace('\n', "\\n")),
        pem.to_string(),
        "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz -----END OPENSSH PRIVATE KEY-----".to_string(),
    ] {
        let keys = key_tokens(&text);
        let body = if text.contains("OPENSSH") {
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz"
        } else {
            "Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4Qw3rTy7UiOp9AsDfGhJk"
        };
        assert!(keys.iter().any(|k| k.contains(body)), "{text}: {keys:?}");
        let rule = redaction_rule(&Redactor::default(), &EnvKeys::default(), [text.as_str()])
            .expect("rule");
        assert!(!rule.redact(&text).contains(&body[..16]), "{text}");
    }
    for (text, key) in [
        (
            "bot 7012345678:AAHm4Qr8Tz1Vb5Nc9Xd3Lf7Kp2Jw6Gs0Ye4 here",
            "7012345678:AAHm4Qr8Tz1Vb5Nc9Xd3Lf7Kp2Jw6Gs0Ye4",
        ),
        (
            "twilio SK0123456789abcdef0123456789abcdef here",
            "SK0123456789abcdef0123456789abcdef",
        ),
        (
            "Authorization: Basic YWRtaW46cGFzc3dvcmQxMjM=",
            "YWRtaW46cGFzc3dvcmQxMjM=",
        ),
        (
            "private_key: Rv8Gh2Kl6Op0St4Wx8Ab2",
            "Rv8Gh2Kl6Op0St4Wx8Ab2",
        ),
        ("API Key: Rv8Gh2Kl6Op0St4Wx8Ab2", "Rv8Gh2Kl6Op0St4Wx8Ab2"),
        ("access key: Rv8Gh2Kl6Op0St4Wx8Ab2", "Rv8Gh2Kl6Op0St4Wx8Ab2"),
        ("api_key => Rv8Gh2Kl6Op0St4Wx8Ab2", "Rv8Gh2Kl6Op0St4Wx8Ab2"),
        ("pass: Rv8Gh2Kl6Op0St4Wx8Ab2", "Rv8Gh2Kl6Op0St4Wx8Ab2"),
        (
            "Authorization: token Rv8Gh2Kl6Op0St4Wx8Ab2",
            "Rv8Gh2Kl6Op0St4Wx8Ab2",
        ),
        (
            "Set-Cookie: sid=Rv8Gh2Kl6Op0St4Wx8Ab2; Path=/",
            "Rv8Gh2Kl6Op0St4Wx8Ab2",
        ),
        (
            "credentials: Rv8Gh2Kl6Op0St4Wx8Ab2",
            "Rv8Gh2Kl6Op0St4Wx8Ab2",
        ),
        (
            "https://maps.acme-geo.io/api/tile?key=Ch9Lm3Pq7Tu1Xy5Bc9",
            "Ch9Lm3Pq7Tu1Xy5Bc9",
        ),
    ] {
        let keys = key_tokens(text);
        assert!(keys.iter().any(|k| k == key), "{text}: {keys:?}");
    }
    for text in [
        "key: Daikin leads the market",
        "The key: sales rose in 2024.",
        "a basic understanding of heat pumps",
        "Authorization: required for every call",
        "SKF makes bearings; SK Innovation makes cells.",
    ] {
        assert!(
            key_tokens(text).is_empty(),
            "{text}: {:?}",
            key_tokens(text)
        );
    }
}

#[test]
fn keys_without_a_prefix_split_keys_and_keys_given_in_a_sentence_are_keys() {
    for (text, keys) in [
        // A provider key with no prefix, alone, as a folder name, in an
        // error message.
        (
            "Mistral: Tz0Cd4Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa",
            &["Tz0Cd4Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa"][..],
        ),
        (
            "runs/Ua1De5Fg7Hj2Kl9Qw4Er8Ty1Ui6Op3As5DxCv2Bn/vm.log.md",
            &["Ua1De5Fg7Hj2Kl9Qw4Er8Ty1Ui6Op3As5DxCv2Bn"],
        ),
        (
            "The API rejected key Tz0Cd4Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa (HTTP 401).",
            &["Tz0Cd4Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa"],
        ),
        // Discord and Mailgun.
        (
            "token MTE5ODc2NTQzMjEwOTg3NjU0.GhIn5R.Jo5Rs9Tu1Vw3Xy5Za7Bc9De1Fg3Hi5Jk7Lm",
            &["MTE5ODc2NTQzMjEwOTg3NjU0.GhIn5R.Jo5Rs9Tu1Vw3Xy5Za7Bc9De1Fg3Hi5Jk7Lm"],
        ),
        (
            "mailgun key-0123456789abcdef0123456789abcdef",
            &["key-0123456789abcdef0123456789abcdef"],
        ),
        // A known-prefix key split by one space, a hair space, code spans.
        (
            "sk-proj- Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0Fg7Hj2Kl9Qw4",
            &["sk-proj-Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0Fg7Hj2Kl9Qw4"],
        ),
        (
            "sk-proj-Hq7\u{200A}Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0",
            &["sk-proj-Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0"],
        ),
        (
            "- `sk-proj-Hq7Lm2` `Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0Fg7Hj2Kl9Qw4Er8Ty1Ui6Op3As5Dx`",
            &["sk-proj-Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0Fg7Hj2Kl9Qw4Er8Ty1Ui6Op3As5Dx"],
        ),
        (
            "key sk-proj-Hq7L m2Zx 9Vb4 Nc8R t1Yu 6Io3 and more text",
            &["sk-proj-Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3"],
        ),
        ("aws-AKIA\tQ3VXH7KL2MN4PQ8R", &["AKIAQ3VXH7KL2MN4PQ8R"]),
        // A URL's password whatever its shape; labels in other languages
        // and command-line flags.
        (
            "postgres://admin:CorrectHorseBatteryStaple@db.internal.io/prod",
            &["CorrectHorseBatteryStaple"],
        ),
        (
            "Passwort: Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "wachtwoord = Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        ("senha: Rv8Gh2Kl6Op0St4Wx8Ab2", &["Rv8Gh2Kl6Op0St4Wx8Ab2"]),
        (
            "contraseña: Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "mot de passe : Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "das Passwort ist Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "mysql --password Rv8Gh2Kl6Op0St4Wx8Ab2 -h db",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "cli --api-key Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        // The value a sentence gives a credential's name.
        (
            "the password is Rv8Gh2Kl6Op0St4Wx8Ab2.",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "COHERE_API_KEY is Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "Password - Rv8Gh2Kl6Op0St4Wx8Ab2",
            &["Rv8Gh2Kl6Op0St4Wx8Ab2"],
        ),
        (
            "HEROKU_API_KEY 8f3c1a2e-4b5d-4e6f-9a7b-1c2d3e4f5a6b",
            &["8f3c1a2e-4b5d-4e6f-9a7b-1c2d3e4f5a6b"],
        ),
        (
            r#"{"private_key_id": "4b8e2a6c0f3d7b1e9a5c3e7f1b2d4a6c8e0f2a4b"}"#,
            &["4b8e2a6c0f3d7b1e9a5c3e7f1b2d4a6c8e0f2a4b"],
        ),
        (
            "mailgun key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
            &["key-3ax6xnjp29jd6fds4gc373sgvjxteol0"],
        ),
    ] {
        let found = key_tokens(text);
        for k in keys {
            assert!(found.iter().any(|f| f == k), "{text}: {found:?}");
        }
        let rule = redaction_rule(&Redactor::default(), &EnvKeys::default(), [text]).expect("rule");
        let shown = rule.redact(text);
        for k in keys {
            // No piece of it, wherever the text breaks it.
            let bare: String = shown.split_whitespace().collect::<Vec<_>>().join("");
            for piece in [&k[..8], &k[k.len() - 8..]] {
                assert!(!bare.contains(piece), "{text}: {shown}");
            }
        }
    }
    // Hashes, ids, names and sentences are no keys.
    for text in [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "trace 4bf92f3577b34da6a3ce929d0e0e4736, span 00f067aa0ba902b7",
        "id 123e4567-e89b-12d3-a456-426614174000",
        "HeatPumpMarketAnalysisForEuropeanCountriesAndRegions",
        "the key is to keep the cells cool in 2024",
        "The password is required for every login.",
        "THE KEY TAKEAWAY is that 2024 sales rose",
        "sk-learn is a library",
    ] {
        assert!(
            key_tokens(text).is_empty(),
            "{text}: {:?}",
            key_tokens(text)
        );
    }
}

#[test]
fn passwords_of_words_and_more_credential_names_are_keys() {
    for (text, key) in [
        (
            "password: CorrectHorseBatteryStaple",
            "CorrectHorseBatteryStaple",
        ),
        ("Password = ChangeMeNow", "ChangeMeNow"),
        (
            "the password is correct-horse-battery-staple",
            "correct-horse-battery-staple",
        ),
        ("DB_PASSWORD CorrectHorseBattery", "CorrectHorseBattery"),
        ("mysql --password TrustNoOneEver", "TrustNoOneEver"),
        ("Passwort: KorrektPferdBatterie", "KorrektPferdBatterie"),
        ("passphrase: Xq7pLm2vRt9s", "Xq7pLm2vRt9s"),
        ("pw: Xq7pLm2vRt9s", "Xq7pLm2vRt9s"),
        ("Das Passwort lautet Xq7pLm2vRt9s.", "Xq7pLm2vRt9s"),
        ("la password è Xq7pLm2vRt9s", "Xq7pLm2vRt9s"),
        ("tool --client-secret Xq7pLm2vRt9s", "Xq7pLm2vRt9s"),
        ("tool --access-token Xq7pLm2vRt9s", "Xq7pLm2vRt9s"),
        (
            "redis://:hunter2secret@cache.acme.io:6379/0",
            "hunter2secret",
        ),
        (
            "https://acct.blob.core.windows.net/c/f.pdf?sv=2022-11-02&sig=Rv8Gh2Kl6Op0St4Wx8Ab2",
            "Rv8Gh2Kl6Op0St4Wx8Ab2",
        ),
        (
            "https://b.s3.amazonaws.com/f.pdf?X-Amz-Signature=9f86d081884c7d659a2feaa0c55ad015",
            "9f86d081884c7d659a2feaa0c55ad015",
        ),
        (
            r#"{"privateKeyId": "4b8e2a6c0f3d7b1e9a5c3e7f1b2d4a6c8e0f2a4b"}"#,
            "4b8e2a6c0f3d7b1e9a5c3e7f1b2d4a6c8e0f2a4b",
        ),
    ] {
        let found = key_tokens(text);
        assert!(found.iter().any(|f| f == key), "{text}: {found:?}");
        let rule = redaction_rule(&Redactor::default(), &EnvKeys::default(), [text]).expect("rule");
        assert!(!rule.redact(text).contains(key), "{text}");
    }
    // Words after other names, and prose about passwords, are no keys.
    for text in [
        "token: HeatPumpMarket",
        "api_key: RequiredField",
        "The password is required for every login.",
        "password: required",
        "Password - see the vault",
        "compass: north",
    ] {
        assert!(
            key_tokens(text).is_empty(),
            "{text}: {:?}",
            key_tokens(text)
        );
    }
}

/// A short text read again is answered from the memo too (from
/// [`MEMO_MIN_BYTES`] up): the keys are the same as a scan's on every
/// read, whatever the text.
#[test]
fn a_repeated_short_text_gives_the_same_keys_as_a_scan() {
    for text in [
        "token: tvly-Qw3rTy7UiOp9AsDfGhJkL2z",
        "password: CorrectHorseBatteryStaple",
        "the weather in Paris is mild today",
        "sk-proj-Qw3rTy7UiOp9AsDfGhJkL2zXcVbNm4",
    ] {
        assert!(text.len() >= MEMO_MIN_BYTES, "{text}");
        let scanned = key_tokens_scanned(text);
        for _ in 0..4 {
            assert_eq!(key_tokens(text), scanned, "{text}");
        }
    }
}

proptest! {
    /// Whatever is read, in whatever order and however often, the memo
    /// answers as a scan does.
    #[test]
    fn the_key_memo_answers_as_a_scan(
        texts in proptest::collection::vec(
            prop_oneof![
                Just("api_key: Qw3rTy7UiOp9AsDfGhJk".to_string()),
                Just("plain words of a message, nothing secret".to_string()),
                "[a-zA-Z0-9:=_ -]{0,60}",
            ],
            1..12,
        ),
        order in proptest::collection::vec(0usize..12, 1..30),
    ) {
        for i in order {
            let text = &texts[i % texts.len()];
            prop_assert_eq!(key_tokens(text), key_tokens_scanned(text));
        }
    }

    /// The redactor's memo of clean texts answers as a search does, for
    /// the redactor that found the text clean and for any other.
    #[test]
    fn the_clean_text_memo_answers_as_a_search(
        texts in proptest::collection::vec("[a-zA-Z0-9 _-]{0,40}", 1..8),
        order in proptest::collection::vec((0usize..8, any::<bool>()), 1..30),
    ) {
        let first = Redactor::new(["Qw3rTy7UiOp9AsDfGhJk"]).expect("redactor");
        let second = Redactor::new(["Zx9Cv8Bn7Mm6Lk5Jh4Gf"]).expect("redactor");
        for (i, use_second) in order {
            let r = if use_second { &second } else { &first };
            let text = &texts[i % texts.len()];
            let searched = r.inner.as_ref().expect("secrets").redact(text);
            prop_assert_eq!(r.redact(text), searched);
        }
    }
}

/// A text one redactor found clean is still redacted by another that
/// knows a secret in it: the memo answers only for the redactor it was
/// made under, never for one built later (even at the same address).
#[test]
fn a_text_clean_under_one_redactor_is_redacted_by_another() {
    let text = "the deploy used Zx9Cv8Bn7Mm6Lk5Jh4Gf for the upload";
    let first = Redactor::new(["Qw3rTy7UiOp9AsDfGhJk"]).expect("redactor");
    for _ in 0..3 {
        assert_eq!(first.redact(text), text);
    }
    drop(first);
    for _ in 0..3 {
        let second = Redactor::new(["Zx9Cv8Bn7Mm6Lk5Jh4Gf"]).expect("redactor");
        let out = second.redact(text);
        assert!(!out.contains("Zx9Cv8Bn7Mm6Lk5Jh4Gf"), "{out}");
        assert!(out.contains(REDACTED), "{out}");
    }
    let both = Redactor::new(["Qw3rTy7UiOp9AsDfGhJk"])
        .and_then(|r| r.with(&Redactor::new(["Zx9Cv8Bn7Mm6Lk5Jh4Gf"])?))
        .expect("redactor");
    assert!(!both.redact(text).contains("Zx9Cv8Bn7Mm6Lk5Jh4Gf"));
}

proptest! {
    /// The packed tail check is the byte comparison it replaces: the last
    /// (at most) 8 characters of `before`, folded ([`folded_name_char`]),
    /// end with a name.
    #[test]
    fn the_packed_tail_check_is_a_folded_ends_with(
        before in "[a-zA-Z_ñÑſK\u{212A}é:= -]{0,14}(pass|PASSWD|api_key|Token|ſecret|\u{212A}ey|wort)?",
    ) {
        const NAMES: [&[u8]; 6] = [b"pass", b"passwd", b"api_key", b"token", b"secret", b"kennwort"];
        const PACKED: Tails<6> = Tails::of(&NAMES);
        let mut folded: Vec<u8> = before
            .chars()
            .rev()
            .take(8)
            .map_while(folded_name_char)
            .collect();
        folded.reverse();
        let expected = NAMES.iter().any(|n| folded.ends_with(n));
        prop_assert_eq!(tail_ends_with_any(&before, &PACKED), expected, "{}", before);
    }
}

/// A value after a credential's name holding the symbols passwords are
/// written with is a key, whole; a query's `&` and a cookie's `;` still
/// end it, and prose without a digit is still left alone.
#[test]
fn credential_values_with_symbols_are_keys() {
    for (text, key) in [
        ("password=P@ssw0rd2024", "P@ssw0rd2024"),
        ("client_secret='P@ssw0rd2024'", "P@ssw0rd2024"),
        ("db password: Hunter#2024!x", "Hunter#2024!x"),
        ("token=ab$12%34^cd*ef&next=1", "ab$12%34^cd*ef"),
        ("the password is S3cr3t!@#x", "S3cr3t!@#x"),
        ("--password Pa$$w0rd99 --user bob", "Pa$$w0rd99"),
        ("session=abc@12345;path=/", "abc@12345"),
        // A refused value is read again from its start: it may be the
        // credential's own name.
        ("the token: password=Hunter2Secret99", "Hunter2Secret99"),
        ("THE TOKEN: PASSWORD=Hunter2Secret99", "Hunter2Secret99"),
        ("the key is password is Hunter2Secret99", "Hunter2Secret99"),
        // Letters of any script.
        ("password=Zx81Sécrét55abçd", "Zx81Sécrét55abçd"),
        ("api_key=Zx81Sécrét55abçd", "Zx81Sécrét55abçd"),
        ("password=Пароль2024секрет", "Пароль2024секрет"),
    ] {
        let keys = key_tokens(text);
        assert!(keys.iter().any(|k| k == key), "{text}: {keys:?}");
        let rule = redaction_rule(&Redactor::default(), &EnvKeys::default(), [text]).expect("rule");
        let shown = rule.redact(text);
        assert!(!shown.contains(key), "{text}: {shown}");
    }
    for text in [
        "password: required!",
        "contact: bob@example.com",
        "token: see the #setup section",
        "rating: 5 stars!!!",
        "пароль: обязательно!",
        "the token: password=required",
    ] {
        assert!(
            key_tokens(text).is_empty(),
            "{text}: {:?}",
            key_tokens(text)
        );
    }
}

/// A bound applied before redaction can leave fewer characters of a key
/// than a fragment at its cut: they are redacted too, on either side of
/// the `…`, in any ASCII case; shorter beginnings and text that begins no
/// secret are left alone.
#[test]
fn a_secret_cut_short_at_an_ellipsis_is_redacted() {
    let red = r(&[
        "Hunter2Secret99",
        "ghp_Zq9xY8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8",
        "Hu-nt-er-2-Secret-99",
        "Hu~nter2Secret99",
        "Hun/ter2Secret99",
    ]);
    for (text, want) in [
        (
            "unknown key `password=Hun…` in a tool call",
            "unknown key `password=[redacted]…` in a tool call",
        ),
        (
            "unknown key `password=hunter2…`",
            "unknown key `password=[redacted]…`",
        ),
        ("found `ghp_Zq9…` here", "found `[redacted]…` here"),
        ("kept: `…et99` at the end", "kept: `…[redacted]` at the end"),
        ("both `Hunte…cret99`", "both `[redacted]…[redacted]`"),
        // Separators inside the cut piece: compared without them, up to
        // CUT_REACH characters from the cut.
        ("key `password=Hu-nt-er…`", "key `password=[redacted]…`"),
        ("key `password=Hu~n…`", "key `password=[redacted]…`"),
        ("key `password=Hu~…`", "key `password=[redacted]…`"),
        ("key `password=Hun/…`", "key `password=[redacted]…`"),
        ("key `ghp_Zq9x…`", "key `[redacted]…`"),
        // Fewer than CUT_CHARS characters, or no secret begun: unchanged.
        ("a word cut `Hu…`", "a word cut `Hu…`"),
        ("the end…", "the end…"),
        ("… and more", "… and more"),
        ("wholly Hun without a cut", "wholly Hun without a cut"),
    ] {
        assert_eq!(red.redact(text), want, "{text}");
    }
}

proptest! {
    /// Whatever is cut, no beginning of a secret of CUT_CHARS or more
    /// characters is left before the `…` of a cut made before redaction.
    #[test]
    fn no_cut_leaves_the_beginning_of_a_secret(
        before in "[a-z =:`]{0,12}",
        keep in CUT_CHARS..20usize,
    ) {
        let secret = "Xk9pQ2wE7rT4yU1iO8aZ";
        let red = r(&[secret]);
        let cut: String = format!("{before}{secret}").chars().take(before.chars().count() + keep).collect();
        let out = red.redact(&format!("{cut}… more")).into_owned();
        let shown: String = secret.chars().take(keep.min(FRAGMENT_CHARS - 1)).collect();
        prop_assert!(!out.contains(&shown), "{out}");
        prop_assert!(out.ends_with("… more"), "{out}");
    }
}

/// What [`may_be_encoded`] answers, read character by character.
fn may_be_encoded_by_chars(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c, '\\' | '%' | '&') || is_invisible(c) || ascii_lookalike(c).is_some())
}

proptest! {
    /// The byte table answers as reading every character does.
    #[test]
    fn may_be_encoded_reads_as_every_character_does(
        text in "[a-z0-9 \\\\%&\t\r\n\u{0}-\u{1f}\u{7f}é\u{200b}\u{ff41}\u{2010}\u{0455}漢\u{feff}]{0,24}"
    ) {
        prop_assert_eq!(may_be_encoded(&text), may_be_encoded_by_chars(&text));
    }
}

#[test]
fn may_be_encoded_sees_marks_invisible_and_look_alike_characters() {
    for (text, encoded) in [
        ("plain text", false),
        ("a\\u0041", true),
        ("100%", true),
        ("a &amp; b", true),
        ("tab\tline\nreturn\r", false),
        ("bell\u{7}", true),
        ("café 漢字", false),
        ("zero\u{200b}width", true),
        ("ｓｋ-full-width", true),
        ("Cyrillic \u{0455}", true),
    ] {
        assert_eq!(may_be_encoded(text), encoded, "{text:?}");
    }
}

/// A JSON value whose strings and keys are drawn from `pieces`.
fn value_of(pieces: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let text = proptest::sample::select(pieces).prop_map(Value::from);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        text,
    ];
    leaf.prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(pieces), inner), 0..4).prop_map(
                |kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            ),
        ]
    })
}

proptest! {
    /// Whether redaction changes a value is found without its JSON value
    /// as with it, keys included.
    #[test]
    fn a_change_is_found_as_redacting_the_json_value_finds_it(
        v in value_of(&["plain", "role", "sk-live-4f8A/b+c=Zq9", "see sk-live-4f8A/b+c=Zq9 here", "4f8A/b+c", "k", ""])
    ) {
        let red = r(&[KEY]);
        let mut copy = v.clone();
        prop_assert_eq!(red.changes(&v), red.redact_value(&mut copy));
        prop_assert!(!Redactor::default().changes(&v));
    }
}

#[derive(serde::Serialize)]
enum Shape {
    Unit,
    Newtype(String),
    Tuple(String, u8),
    Struct { note: String },
}

/// A change that puts the key somewhere in a [`Record`].
type Leak = Box<dyn Fn(&mut Record)>;

#[derive(serde::Serialize)]
struct Record {
    name: String,
    shapes: Vec<Shape>,
    by_number: std::collections::BTreeMap<u32, String>,
    by_char: std::collections::BTreeMap<char, String>,
    maybe: Option<String>,
}

/// Every place a string of a serialized value can be is searched: a
/// variant's payload, a map's value under a number or a character key.
#[test]
fn a_change_is_found_wherever_the_value_holds_the_key() {
    let red = r(&[KEY]);
    let clean = || Record {
        name: "ok".into(),
        shapes: vec![
            Shape::Unit,
            Shape::Newtype("a".into()),
            Shape::Tuple("b".into(), 1),
            Shape::Struct { note: "c".into() },
        ],
        by_number: [(1, "d".into())].into(),
        by_char: [('x', "e".into())].into(),
        maybe: Some("f".into()),
    };
    assert!(!red.changes(&clean()));
    let leaky: Vec<Leak> = vec![
        Box::new(|x| x.name = KEY.into()),
        Box::new(|x| x.shapes[1] = Shape::Newtype(KEY.into())),
        Box::new(|x| x.shapes[2] = Shape::Tuple(KEY.into(), 1)),
        Box::new(|x| x.shapes[3] = Shape::Struct { note: KEY.into() }),
        Box::new(|x| {
            x.by_number.insert(2, KEY.into());
        }),
        Box::new(|x| {
            x.by_char.insert('y', KEY.into());
        }),
        Box::new(|x| x.maybe = Some(format!("at {KEY}"))),
    ];
    for (i, leak) in leaky.iter().enumerate() {
        let mut x = clean();
        leak(&mut x);
        let mut v = serde_json::to_value(&x).expect("json");
        assert!(red.changes(&x), "case {i}");
        assert!(red.redact_value(&mut v), "case {i}");
    }
}

/// A value under a credential's name in JSON (arguments as an object, or
/// as the JSON text of one) is read as `name=value` is; a number holding
/// a secret is redacted as its text.
#[test]
fn a_credential_in_json_is_read_as_its_name_and_value() {
    for v in [
        json!({"password": "hunter2xyz9"}),
        json!({"args": {"api_key": "hunter2xyz9"}}),
        json!({"arguments": "{\"client_secret\": \"hunter2xyz9\"}"}),
        json!([{"pwd": "hunter2xyz9"}]),
    ] {
        assert_eq!(json_key_tokens(&v), ["hunter2xyz9"], "{v}");
    }
    let pin = json!({"pin_password": 9876543210123_u64});
    assert_eq!(json_key_tokens(&pin), ["9876543210123"]);
    // Prose under such a name is no secret, as in text.
    for v in [
        json!({"token": "HeatPumpMarket"}),
        json!({"password": "required"}),
    ] {
        assert!(json_key_tokens(&v).is_empty(), "{v}");
    }
    let red = r(&["9876543210123"]);
    let mut v = json!({"note": 9876543210123_u64, "n": 3});
    assert!(red.changes(&v));
    assert!(red.redact_value(&mut v));
    assert_eq!(v, json!({"note": REDACTED, "n": 3}));
}

#[test]
fn a_token_after_a_prefix_no_word_holds_is_a_key_without_a_digit() {
    let text = "request failed: glpat-AbCdEfGhIjKlMnOpQrSt";
    let found: Vec<String> = key_tokens(text)
        .into_iter()
        .map(|t| t.to_string())
        .collect();
    assert!(
        found.iter().any(|t| t == "glpat-AbCdEfGhIjKlMnOpQrSt"),
        "{found:?}"
    );
    // A word after a prefix words hold is none.
    assert!(key_tokens("the sk-learnAbCdEfGhIjKlMnOpQrSt library").is_empty());
}

#[test]
fn a_path_of_forty_characters_is_no_aws_secret() {
    let path = "/work/op25/scratch/out/A1/workspace/svc/_error.md";
    assert!(aws_secrets(path).is_empty(), "{:?}", aws_secrets(path));
    // A key with slashes in it still is one.
    let key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    assert_eq!(aws_secrets(&format!("secret {key} here")), vec![key]);
}

#[test]
fn words_and_numbers_after_a_key_prefix_name_a_folder_not_a_key() {
    for name in [
        "hf_runs_2026_12_01",
        "sk-test-data-2024",
        "hf_cache_2025_01",
    ] {
        let text = format!("/runs/{name}/workspace/svc/_error.md:1");
        assert!(
            key_tokens(&text).is_empty(),
            "{name}: {:?}",
            key_tokens(&text)
        );
    }
    // A key's tail mixes cases or letters and digits within a part.
    for key in [
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
        "sk-or-v1-0123456789abcdef0123456789abcdef",
        "xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1",
    ] {
        assert!(!key_tokens(key).is_empty(), "{key}");
    }
}

/// A key prefix written with ASCII characters drawn like its own (UTS
/// #39: `I`, `1` for `l`, `0` for `O`) is a key, found as written; words
/// that only share the look of a prefix are not.
#[test]
fn a_prefix_in_ascii_lookalikes_is_a_key() {
    for key in [
        "gIpat-Ab3dEf6hIj9kLm2nOp5q",
        "g1pat-Ab3dEf6hIj9kLm2nOp5q",
        "gIdt-Ab3dEf6hIj9kLm2nOp5q",
        "gIrt-Ab3dEf6hIj9kLm2nOp5q",
        "AK1AIOSFODNN7EXAMPL3",
        "GRl348941Ab3dEf6hIj9kLm2nOp5q",
        "G0CSPX-Ab3dEf6hIj9kLm2nOp5q",
    ] {
        let text = format!("the token {key} was printed");
        assert_eq!(key_tokens(&text), vec![key.to_string()], "{key}");
        let redacted = Redactor::new(key_tokens(&text)).expect("redactor");
        assert_eq!(redacted.redact(&text), "the token [redacted] was printed");
    }
    // A small `l` for a prefix's capital `I` spells names: not read.
    for word in [
        "Alzheimer-research-2024-data",
        "gIobal_settings_2024_final",
        "Alza_Research_2024_final_v2",
        "AlzaRetail2024Q3Report",
        "AKlAIOSFODNN7EXAMPL3",
    ] {
        assert!(
            key_tokens(word).is_empty(),
            "{word}: {:?}",
            key_tokens(word)
        );
    }
}

/// The same through what the other spellings of a key see: glued after
/// letters, a Unicode hyphen, emphasis inside, a fullwidth letter beside,
/// and letters drawn as two (`cl` for `d`, `rn` for `m`).
#[test]
fn a_lookalike_prefix_is_found_in_every_spelling() {
    for (text, key) in [
        ("xgIpat-Ab3dEf6hIj9kLm2nOp5q", "gIpat-Ab3dEf6hIj9kLm2nOp5q"),
        (
            "x_GRl348941Ab3dEf6hIj9kLm2nOp5q",
            "GRl348941Ab3dEf6hIj9kLm2nOp5q",
        ),
        (
            "gIpat\u{2010}Ab3dEf6hIj9kLm2nOp5q",
            "gIpat-Ab3dEf6hIj9kLm2nOp5q",
        ),
        (
            "gI**pat**-Ab3dEf6hIj9kLm2nOp5q",
            "gIpat-Ab3dEf6hIj9kLm2nOp5q",
        ),
        (
            "\u{ff47}Ipat-Ab3dEf6hIj9kLm2nOp5q",
            "gIpat-Ab3dEf6hIj9kLm2nOp5q",
        ),
        ("glclt-Ab3dEf6hIj9kLm2nOp5q", "glclt-Ab3dEf6hIj9kLm2nOp5q"),
        ("glirnt-Ab3dEf6hIj9kLm2nOp5q", "glirnt-Ab3dEf6hIj9kLm2nOp5q"),
    ] {
        let found = key_tokens(text);
        assert!(found.iter().any(|k| k == key), "{text}: {found:?}");
        let redactor = Redactor::new(found).expect("redactor");
        let shown = redactor.redact(text);
        assert!(!shown.contains("Ab3dEf6hIj9k"), "{text}: {shown}");
    }
}
