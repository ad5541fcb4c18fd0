//! Values that satisfy (or break) a check's matchers: the text a regular
//! expression matches, an argument value a [`ValueMatch`] accepts, a
//! plausible wrong value it rejects. Every candidate is checked with the
//! same matcher the grader uses, so nothing here has to be exact: a value
//! that does not check out is never returned.

use pactum_core::contract::ValueMatch;
use pactum_eval::CompiledValueMatch;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::Value;

/// The longest witness built, in characters: a pattern that needs more
/// (`a{5000}`) gets none.
const MAX_WITNESS_CHARS: usize = 1000;

/// A short string that `pattern` (Rust `regex` syntax) matches, or `None`
/// when none could be built (a pattern that does not parse, needs more
/// than 1,000 characters, or whose simplest reading does not match, e.g.
/// look-around the minimal choice cannot satisfy).
///
/// Deterministic and minimal-ish: each repetition its minimum count, each
/// alternation its first branch that yields a witness, each class a
/// readable member (a lowercase letter, else an uppercase letter, a digit,
/// a space, printable ASCII, else its first character).
pub fn regex_witness(pattern: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let mut out = String::new();
    build(&hir, &mut out)?;
    let re = regex::Regex::new(pattern).ok()?;
    re.is_match(&out).then_some(out)
}

fn build(hir: &Hir, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(std::str::from_utf8(&lit.0).ok()?),
        HirKind::Class(Class::Unicode(c)) => {
            out.push(pick(c.ranges().iter().map(|r| (r.start(), r.end())))?)
        }
        HirKind::Class(Class::Bytes(c)) => {
            let ascii = c
                .ranges()
                .iter()
                .filter(|r| r.start() < 0x80)
                .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))));
            out.push(pick(ascii)?);
        }
        HirKind::Repetition(r) => {
            let n = usize::try_from(r.min).ok()?;
            if n > MAX_WITNESS_CHARS {
                return None;
            }
            for _ in 0..n {
                build(&r.sub, out)?;
                if out.chars().count() > MAX_WITNESS_CHARS {
                    return None;
                }
            }
        }
        HirKind::Capture(c) => build(&c.sub, out)?,
        HirKind::Concat(items) => {
            for h in items {
                build(h, out)?;
            }
        }
        HirKind::Alternation(items) => {
            let mut done = false;
            for h in items {
                let mut alt = String::new();
                if build(h, &mut alt).is_some() {
                    out.push_str(&alt);
                    done = true;
                    break;
                }
            }
            if !done {
                return None;
            }
        }
    }
    (out.chars().count() <= MAX_WITNESS_CHARS).then_some(())
}

/// A readable member of a class given as inclusive ranges.
fn pick(ranges: impl Iterator<Item = (char, char)> + Clone) -> Option<char> {
    let contains = |c: char| ranges.clone().any(|(a, b)| a <= c && c <= b);
    let preferred = ('a'..='z')
        .chain('A'..='Z')
        .chain('0'..='9')
        .chain(std::iter::once(' '))
        .chain('!'..='~');
    preferred
        .into_iter()
        .find(|c| contains(*c))
        .or_else(|| ranges.clone().next().map(|(a, _)| a))
}

/// A value that `m` accepts, built from its own conditions (`equals`,
/// `one_of`, `contains`, `icontains`, `regex`, `exists`), or `None` when
/// no candidate satisfies every condition at once. `Some(None)` means
/// "leave the value absent" (`exists: false`).
pub fn satisfying_value(m: &ValueMatch) -> Option<Option<Value>> {
    let compiled = CompiledValueMatch::compile(m.clone()).ok()?;
    if compiled.matches(None) && m.exists == Some(false) {
        return Some(None);
    }
    let mut candidates: Vec<Value> = Vec::new();
    if let Some(v) = &m.equals {
        candidates.push(v.clone());
    }
    if let Some(list) = &m.one_of {
        candidates.extend(list.iter().cloned());
    }
    let regex = m.regex.as_deref().and_then(regex_witness);
    if let Some(v) = &m.contains {
        match v {
            Value::String(s) => {
                candidates.push(Value::String(s.clone()));
                if let Some(w) = &regex {
                    candidates.push(Value::String(format!("{s} {w}")));
                    candidates.push(Value::String(format!("{w} {s}")));
                }
            }
            other => candidates.push(Value::Array(vec![other.clone()])),
        }
    }
    if let Some(s) = &m.icontains {
        candidates.push(Value::String(s.clone()));
        if let Some(w) = &regex {
            candidates.push(Value::String(format!("{s} {w}")));
        }
    }
    if let Some(w) = regex {
        candidates.push(Value::String(w));
    }
    if m.exists == Some(true) || m.is_empty() {
        candidates.push(Value::String("probe".into()));
    }
    candidates
        .into_iter()
        .find(|c| compiled.matches(Some(c)))
        .map(Some)
}

/// A plausible wrong value for one that `m` accepts: the same shape with a
/// small change (the last digit of a string bumped, then its last letter,
/// a number off by one, a boolean flipped), else a blunt replacement, else
/// removing the value. `None` when even removal still matches (an
/// `exists: false` or empty matcher). `Some(None)` means "remove it".
pub fn corrupted_value(m: &CompiledValueMatch, original: &Value) -> Option<Option<Value>> {
    let mut candidates: Vec<Value> = Vec::new();
    match original {
        Value::String(s) => {
            if let Some(b) = bump_last(s, |c| c.is_ascii_digit()) {
                candidates.push(Value::String(b));
            }
            if let Some(b) = bump_last(s, |c| c.is_ascii_alphabetic()) {
                candidates.push(Value::String(b));
            }
            candidates.push(Value::String(format!("{s}-corrupted")));
            candidates.push(Value::String("corrupted".into()));
            candidates.push(Value::String(String::new()));
        }
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                candidates.extend(
                    [i.checked_add(1), i.checked_sub(1)]
                        .into_iter()
                        .flatten()
                        .map(Value::from),
                );
            } else if let Some(u) = n.as_u64() {
                candidates.extend(u.checked_sub(1).map(Value::from));
            } else if let Some(f) = n.as_f64() {
                candidates.extend(serde_json::Number::from_f64(f + 1.0).map(Value::Number));
            }
            candidates.push(Value::from(0));
        }
        Value::Bool(b) => candidates.push(Value::Bool(!b)),
        Value::Array(_) => candidates.push(Value::Array(Vec::new())),
        Value::Object(_) => candidates.push(Value::Object(serde_json::Map::new())),
        Value::Null => {}
    }
    candidates.push(Value::String("corrupted".into()));
    if let Some(c) = candidates
        .into_iter()
        .find(|c| c != original && !m.matches(Some(c)))
    {
        return Some(Some(c));
    }
    (!m.matches(None)).then_some(None)
}

/// `s` with its last character satisfying `class` replaced by the next one
/// of its kind (`9` → `0`, `z` → `a`, `Z` → `A`).
fn bump_last(s: &str, class: impl Fn(char) -> bool) -> Option<String> {
    let (i, c) = s.char_indices().rev().find(|(_, c)| class(*c))?;
    let next = match c {
        '9' => '0',
        'z' => 'a',
        'Z' => 'A',
        c => char::from_u32(u32::from(c) + 1)?,
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(s.get(..i)?);
    out.push(next);
    out.push_str(s.get(i + c.len_utf8()..)?);
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn witnesses_for_common_patterns() {
        for (p, want) in [
            ("US133000000121212121212", "US133000000121212121212"),
            (r"^US\d{2}$", "US00"),
            ("(?i)iban", "iban"),
            ("a+b*c?", "a"),
            ("foo|bar", "foo"),
            (r"\bpassword\b", "password"),
            ("[^x]", "a"),
            (r"\S", "a"),
            ("", ""),
        ] {
            assert_eq!(regex_witness(p).as_deref(), Some(want), "{p}");
        }
        for p in ["(", "a{5000}", r"$^a", r"\Bx\B"] {
            assert_eq!(regex_witness(p), None, "{p}");
        }
    }

    fn vm(j: Value) -> ValueMatch {
        serde_json::from_value(j).unwrap()
    }

    #[test]
    fn satisfying_values() {
        for (m, want) in [
            (json!("US13"), Some(Some(json!("US13")))),
            (json!({"one_of": [3, 4]}), Some(Some(json!(3)))),
            (json!({"contains": "refund"}), Some(Some(json!("refund")))),
            (json!({"contains": 2}), Some(Some(json!([2])))),
            (json!({"icontains": "Yes"}), Some(Some(json!("Yes")))),
            (json!({"regex": r"^\d{3}$"}), Some(Some(json!("000")))),
            (
                json!({"contains": "ab", "regex": "z$"}),
                Some(Some(json!("ab z"))),
            ),
            (json!({"exists": true}), Some(Some(json!("probe")))),
            (json!({"exists": false}), Some(None)),
            (json!({"equals": 1, "one_of": [2]}), None),
        ] {
            assert_eq!(satisfying_value(&vm(m.clone())), want, "{m}");
        }
    }

    #[test]
    fn corrupted_values_fail_the_matcher_and_differ() {
        let cases = [
            (
                json!("US133000000121212121212"),
                json!("US133000000121212121212"),
            ),
            (json!({"one_of": ["a", "b"]}), json!("a")),
            (json!({"contains": "x"}), json!("xyz")),
            (json!({"regex": "^[a-z]+$"}), json!("abc")),
            (json!(5), json!(5)),
            (json!(true), json!(true)),
            (json!({"exists": true}), json!({"k": 1})),
        ];
        for (m, original) in cases {
            let compiled = CompiledValueMatch::compile(vm(m.clone())).unwrap();
            assert!(compiled.matches(Some(&original)), "{m}");
            let c = corrupted_value(&compiled, &original).unwrap();
            assert!(!compiled.matches(c.as_ref()), "{m} -> {c:?}");
            assert_ne!(c.as_ref(), Some(&original));
        }
        // An IBAN loses its last digit's value, not its shape.
        let compiled = CompiledValueMatch::compile(vm(json!("DE89"))).unwrap();
        assert_eq!(
            corrupted_value(&compiled, &json!("DE89")),
            Some(Some(json!("DE80")))
        );
        // exists:false accepts absence, so removal cannot break it…
        let compiled = CompiledValueMatch::compile(vm(json!({"exists": false}))).unwrap();
        assert_eq!(
            corrupted_value(&compiled, &Value::Null),
            Some(Some(json!("corrupted")))
        );
        // …and an empty matcher accepts everything.
        let compiled = CompiledValueMatch::compile(ValueMatch::default()).unwrap();
        assert_eq!(corrupted_value(&compiled, &json!(1)), None);
    }
}
