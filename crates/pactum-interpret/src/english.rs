//! The little English the built-in interpreter needs: putting a verb in
//! its base form ("produces" / "producing" → "produce"), and the word
//! lists that decide whether a plain statement names something harmful.
//! Rules plus exception tables; pure and deterministic.

/// Irregular or ambiguous gerunds, checked before the rules.
const GERUND_EXCEPTIONS: &[(&str, &str)] = &[
    ("adding", "add"),
    ("adhering", "adhere"),
    ("adoring", "adore"),
    ("arranging", "arrange"),
    ("biasing", "bias"),
    ("biting", "bite"),
    ("cancelling", "cancel"),
    ("challenging", "challenge"),
    ("changing", "change"),
    ("citing", "cite"),
    ("cloning", "clone"),
    ("combating", "combat"),
    ("compelling", "compel"),
    ("competing", "compete"),
    ("completing", "complete"),
    ("condoning", "condone"),
    ("controlling", "control"),
    ("creating", "create"),
    ("deleting", "delete"),
    ("dying", "die"),
    ("exchanging", "exchange"),
    ("exciting", "excite"),
    ("excelling", "excel"),
    ("expelling", "expel"),
    ("exploring", "explore"),
    ("focusing", "focus"),
    ("focussing", "focus"),
    ("fulfilling", "fulfill"),
    ("guiding", "guide"),
    ("honing", "hone"),
    ("igniting", "ignite"),
    ("ignoring", "ignore"),
    ("inciting", "incite"),
    ("inhaling", "inhale"),
    ("interfering", "interfere"),
    ("inviting", "invite"),
    ("labelling", "label"),
    ("lying", "lie"),
    ("modelling", "model"),
    ("overwriting", "overwrite"),
    ("pasting", "paste"),
    ("patrolling", "patrol"),
    ("phoning", "phone"),
    ("pivoting", "pivot"),
    ("postponing", "postpone"),
    ("propelling", "propel"),
    ("quizzing", "quiz"),
    ("ranging", "range"),
    ("reciting", "recite"),
    ("recreating", "recreate"),
    ("restoring", "restore"),
    ("rewriting", "rewrite"),
    ("rioting", "riot"),
    ("scaling", "scale"),
    ("scoring", "score"),
    ("signalling", "signal"),
    ("storing", "store"),
    ("tasting", "taste"),
    ("travelling", "travel"),
    ("tying", "tie"),
    ("uniting", "unite"),
    ("untying", "untie"),
    ("vying", "vie"),
    ("wasting", "waste"),
    ("writing", "write"),
    ("zoning", "zone"),
];

/// Irregular or ambiguous third-person forms.
const THIRD_PERSON_EXCEPTIONS: &[(&str, &str)] = &[
    ("biases", "bias"),
    ("caches", "cache"),
    ("canoes", "canoe"),
    ("dies", "die"),
    ("does", "do"),
    ("focuses", "focus"),
    ("focusses", "focus"),
    ("goes", "go"),
    ("has", "have"),
    ("is", "be"),
    ("lies", "lie"),
    ("quizzes", "quiz"),
    ("ties", "tie"),
    ("unties", "untie"),
    ("vies", "vie"),
];

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Whether the letter before the stem's last consonant is a single vowel
/// (not part of a vowel pair: "reveal", "explain" are pairs). A `u` after
/// `q`, `g` or `s` ("require", "guide", "persuade") counts as a consonant.
fn single_vowel_before(b: &[u8]) -> Option<u8> {
    let n = b.len();
    let p = *b.get(n.checked_sub(2)?)?;
    let vowelish = is_vowel(p) || p == b'y';
    if !vowelish {
        return None;
    }
    match n.checked_sub(3).and_then(|i| b.get(i)) {
        Some(&q) if is_vowel(q) => {
            let u_as_consonant = q == b'u'
                && n.checked_sub(4)
                    .and_then(|i| b.get(i))
                    .is_some_and(|c| matches!(c, b'q' | b'g' | b's'));
            u_as_consonant.then_some(p)
        }
        _ => Some(p),
    }
}

/// Whether a gerund's stem (the word without `ing`, after undoubling)
/// lost a silent `e`: "produc" → "produce", "shar" → "share", but
/// "reveal", "visit", "enter" stay.
fn needs_e(stem: &str) -> bool {
    let b = stem.as_bytes();
    let n = b.len();
    let Some(&c) = b.last() else {
        return false;
    };
    let p = if n >= 2 { b[n - 2] } else { 0 };
    let single = single_vowel_before(b);
    match c {
        b'c' | b'v' | b'u' => true,
        b'z' => p != b'z',
        b's' => p != b's',
        b'g' => match p {
            b'r' | b'd' => true,
            b'n' => false,
            _ => single.is_some(),
        },
        b'l' => {
            if !is_vowel(p) && !matches!(p, b'r' | b'w' | b'l' | b'y') && p != 0 {
                true
            } else {
                matches!(single, Some(b'i' | b'u' | b'o'))
            }
        }
        // "create" is an exception; "initiate", "evaluate" keep the e
        // after a vowel pair, "treat", "float" do not.
        b't' => match single {
            Some(b'a' | b'u' | b'o') => true,
            _ => p == b'a' && n >= 3 && matches!(b[n - 3], b'i' | b'u'),
        },
        b'd' | b'b' | b'k' | b'f' => single.is_some(),
        b'p' => match single {
            Some(b'o') => !(n >= 3 && b[n - 3] == b'l'),
            Some(b'a' | b'i' | b'u' | b'y') => true,
            _ => false,
        },
        b'r' => matches!(single, Some(b'a' | b'i' | b'u')),
        b'm' => matches!(single, Some(b'a' | b'i' | b'u' | b'o')),
        b'n' => matches!(single, Some(b'i' | b'u')),
        _ => false,
    }
}

/// The base form of a gerund ("producing" → "produce", "running" →
/// "run", "revealing" → "reveal"), lowercase; `None` when `word` is not a
/// gerund (no `ing` ending, or too short: "ring", "thing").
pub(crate) fn base_from_gerund(word: &str) -> Option<String> {
    let w = word.to_lowercase();
    if let Some((_, base)) = GERUND_EXCEPTIONS.iter().find(|(g, _)| *g == w) {
        return Some((*base).to_string());
    }
    let stem = w.strip_suffix("ing")?;
    if stem.len() < 2 || !stem.bytes().any(|c| is_vowel(c) || c == b'y') {
        return None;
    }
    let b = stem.as_bytes();
    let n = b.len();
    if b[n - 1] == b'y' || b[n - 1] == b'e' {
        return Some(stem.to_string());
    }
    if n >= 3 && b[n - 1] == b[n - 2] && b"bdgkmnprtv".contains(&b[n - 1]) {
        return Some(stem[..n - 1].to_string());
    }
    if needs_e(stem) {
        return Some(format!("{stem}e"));
    }
    Some(stem.to_string())
}

/// The base form of a third-person present verb ("produces" → "produce",
/// "copies" → "copy", "pushes" → "push"), lowercase. A word that is
/// already a base form comes back unchanged unless it ends in a single `s`.
pub(crate) fn base_from_third_person(word: &str) -> String {
    let w = word.to_lowercase();
    if let Some((_, base)) = THIRD_PERSON_EXCEPTIONS.iter().find(|(t, _)| *t == w) {
        return (*base).to_string();
    }
    if let Some(stem) = w.strip_suffix("ies") {
        if w.len() > 4 {
            return format!("{stem}y");
        }
    }
    for suffix in ["sses", "shes", "ches", "xes", "zzes", "oes"] {
        if w.ends_with(suffix) {
            return w[..w.len() - 2].to_string();
        }
    }
    if w.ends_with('s') && !w.ends_with("ss") && w.len() > 2 {
        return w[..w.len() - 1].to_string();
    }
    w
}

/// Verbs (base form) that name the target producing or doing something:
/// the only verbs the statement framing "The target X" is read with.
pub(crate) const ACTION_VERBS: &[&str] = &[
    "agree",
    "assist",
    "bypass",
    "call",
    "compose",
    "create",
    "delete",
    "describe",
    "detail",
    "disclose",
    "discuss",
    "download",
    "draft",
    "email",
    "encourage",
    "endorse",
    "execute",
    "exfiltrate",
    "explain",
    "expose",
    "forward",
    "generate",
    "give",
    "help",
    "impersonate",
    "insult",
    "install",
    "leak",
    "list",
    "make",
    "offer",
    "outline",
    "output",
    "pay",
    "post",
    "print",
    "produce",
    "promote",
    "provide",
    "publish",
    "recommend",
    "repeat",
    "reveal",
    "run",
    "say",
    "send",
    "share",
    "spread",
    "steal",
    "suggest",
    "teach",
    "tell",
    "threaten",
    "transfer",
    "upload",
    "use",
    "visit",
    "write",
];

/// Words and phrases that name harm unambiguously (matched as whole words
/// or phrases, lowercase). A plain statement "The target X" is read as a
/// prohibition only when X contains one of these and none of
/// [`PROTECTIVE`].
pub(crate) const HARM_TERMS: &[&str] = &[
    "abusive",
    "api key",
    "api keys",
    "attacker",
    "attacker's",
    "bioweapon",
    "bioweapons",
    "bomb",
    "bombs",
    "confidential",
    "counterfeit",
    "credentials",
    "credit card",
    "dangerous",
    "defamatory",
    "disinformation",
    "exploit",
    "exploits",
    "explosive",
    "explosives",
    "extremist",
    "firearm",
    "firearms",
    "fraud",
    "fraudulent",
    "harassment",
    "harmful",
    "hate speech",
    "hateful",
    "hidden instructions",
    "illegal",
    "illicit",
    "internal instructions",
    "malicious",
    "malware",
    "misinformation",
    "nerve agent",
    "password",
    "passwords",
    "personal data",
    "phishing",
    "poison",
    "private data",
    "private information",
    "racist",
    "ransomware",
    "scam",
    "secret",
    "secrets",
    "self-harm",
    "sexist",
    "slurs",
    "social security number",
    "stolen",
    "system prompt",
    "terrorist",
    "toxic",
    "unsafe",
    "violent",
    "weapon",
    "weapons",
];

/// Words that turn a harm term into protective content ("explains the
/// risks of drug use", "warns about phishing"): a statement containing one
/// is not read as a prohibition.
pub(crate) const PROTECTIVE: &[&str] = &[
    "awareness",
    "danger of",
    "dangers",
    "helpline",
    "hotline",
    "prevent",
    "prevention",
    "protect",
    "protection",
    "report",
    "risk",
    "risks",
    "safe",
    "safely",
    "safety",
    "warn",
    "warning",
    "warnings",
    "warns",
];

/// `text` lowercased with every run of non-word characters (anything but
/// letters, digits, `'` and `-`) folded to one space, padded with a space
/// on both sides, so ` phrase ` finds whole words and phrases.
pub(crate) fn word_padded(text: &str) -> String {
    let mut out = String::from(" ");
    let mut last_space = true;
    for c in text.to_lowercase().chars() {
        if c.is_alphanumeric() || c == '\'' || c == '-' {
            out.push(c);
            last_space = false;
        } else if !last_space {
            out.push(' ');
            last_space = true;
        }
    }
    if !last_space {
        out.push(' ');
    }
    out
}

/// The first term of `list` that occurs in `text` as a whole word or
/// phrase.
pub(crate) fn find_term(text: &str, list: &[&'static str]) -> Option<&'static str> {
    let padded = word_padded(text);
    list.iter()
        .copied()
        .find(|t| padded.contains(&format!(" {t} ")))
}

/// `s` with its first character upper-cased.
pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// `s` with its first character lower-cased.
pub(crate) fn decapitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// A clause id from its text: lowercase ASCII words joined by `-`, at most
/// six words and 40 characters; `clause` when nothing is left.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    let words = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6);
    for w in words {
        let w = w.to_ascii_lowercase();
        if !out.is_empty() {
            if out.len() + 1 + w.len() > 40 {
                break;
            }
            out.push('-');
        }
        out.push_str(&w[..w.len().min(40)]);
    }
    if out.is_empty() {
        "clause".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gerunds_to_base_forms() {
        let cases = [
            ("producing", "produce"),
            ("revealing", "reveal"),
            ("sending", "send"),
            ("writing", "write"),
            ("giving", "give"),
            ("explaining", "explain"),
            ("sharing", "share"),
            ("leaking", "leak"),
            ("making", "make"),
            ("providing", "provide"),
            ("generating", "generate"),
            ("disclosing", "disclose"),
            ("creating", "create"),
            ("running", "run"),
            ("stopping", "stop"),
            ("transferring", "transfer"),
            ("emailing", "email"),
            ("visiting", "visit"),
            ("deleting", "delete"),
            ("helping", "help"),
            ("describing", "describe"),
            ("using", "use"),
            ("bypassing", "bypass"),
            ("ignoring", "ignore"),
            ("telling", "tell"),
            ("saying", "say"),
            ("executing", "execute"),
            ("calling", "call"),
            ("booking", "book"),
            ("installing", "install"),
            ("copying", "copy"),
            ("seeing", "see"),
            ("agreeing", "agree"),
            ("persuading", "persuade"),
            ("requiring", "require"),
            ("acquiring", "acquire"),
            ("quoting", "quote"),
            ("continuing", "continue"),
            ("issuing", "issue"),
            ("treating", "treat"),
            ("initiating", "initiate"),
            ("evaluating", "evaluate"),
            ("translating", "translate"),
            ("impersonating", "impersonate"),
            ("computing", "compute"),
            ("outputting", "output"),
            ("submitting", "submit"),
            ("embedding", "embed"),
            ("handling", "handle"),
            ("enabling", "enable"),
            ("compiling", "compile"),
            ("scheduling", "schedule"),
            ("revealing", "reveal"),
            ("failing", "fail"),
            ("developing", "develop"),
            ("escaping", "escape"),
            ("typing", "type"),
            ("monitoring", "monitor"),
            ("entering", "enter"),
            ("offering", "offer"),
            ("securing", "secure"),
            ("sharing", "share"),
            ("naming", "name"),
            ("assuming", "assume"),
            ("performing", "perform"),
            ("claiming", "claim"),
            ("defining", "define"),
            ("determining", "determine"),
            ("opening", "open"),
            ("mentioning", "mention"),
            ("training", "train"),
            ("urging", "urge"),
            ("judging", "judge"),
            ("managing", "manage"),
            ("bringing", "bring"),
            ("logging", "log"),
            ("analyzing", "analyze"),
            ("buzzing", "buzz"),
            ("releasing", "release"),
            ("causing", "cause"),
            ("processing", "process"),
            ("reversing", "reverse"),
            ("editing", "edit"),
            ("exploiting", "exploit"),
            ("targeting", "target"),
            ("voting", "vote"),
            ("shooting", "shoot"),
            ("teaching", "teach"),
            ("publishing", "publish"),
            ("fixing", "fix"),
            ("showing", "show"),
            ("posting", "post"),
            ("printing", "print"),
            ("extracting", "extract"),
            ("having", "have"),
            ("removing", "remove"),
            ("doing", "do"),
            ("being", "be"),
            ("lying", "lie"),
            ("inviting", "invite"),
            ("guiding", "guide"),
            ("encoding", "encode"),
            ("including", "include"),
            ("invoking", "invoke"),
            ("hacking", "hack"),
            ("stealing", "steal"),
            ("exfiltrating", "exfiltrate"),
            ("forwarding", "forward"),
            ("paying", "pay"),
        ];
        let mut wrong = Vec::new();
        for (g, b) in cases {
            if base_from_gerund(g).as_deref() != Some(b) {
                wrong.push((g, base_from_gerund(g)));
            }
        }
        assert!(wrong.is_empty(), "{wrong:?}");
        for not_gerund in ["ring", "thing", "produce", "sing", "ing", ""] {
            assert_eq!(base_from_gerund(not_gerund), None, "{not_gerund}");
        }
    }

    #[test]
    fn third_person_to_base_forms() {
        let cases = [
            ("produces", "produce"),
            ("reveals", "reveal"),
            ("sends", "send"),
            ("writes", "write"),
            ("gives", "give"),
            ("explains", "explain"),
            ("copies", "copy"),
            ("applies", "apply"),
            ("passes", "pass"),
            ("pushes", "push"),
            ("teaches", "teach"),
            ("fixes", "fix"),
            ("goes", "go"),
            ("does", "do"),
            ("has", "have"),
            ("is", "be"),
            ("discloses", "disclose"),
            ("uses", "use"),
            ("focuses", "focus"),
            ("says", "say"),
            ("lies", "lie"),
            ("bypasses", "bypass"),
            ("discusses", "discuss"),
            ("produce", "produce"),
            ("bypass", "bypass"),
        ];
        for (t, b) in cases {
            assert_eq!(base_from_third_person(t), b, "{t}");
        }
    }

    #[test]
    fn terms_match_whole_words_only() {
        assert_eq!(
            find_term("produce harmful content", HARM_TERMS),
            Some("harmful")
        );
        assert_eq!(
            find_term("reveal its System Prompt.", HARM_TERMS),
            Some("system prompt")
        );
        assert_eq!(find_term("book a flight to Paris", HARM_TERMS), None);
        // "harmfulness" is not "harmful"; "unsafely" is not "unsafe".
        assert_eq!(find_term("rate harmfulness unsafely", HARM_TERMS), None);
        assert_eq!(
            find_term("explain the risks of phishing", PROTECTIVE),
            Some("risks")
        );
    }

    #[test]
    fn slugs_are_short_ascii_ids() {
        assert_eq!(slug("Produce harmful content"), "produce-harmful-content");
        assert_eq!(
            slug("Send money to the attacker's IBAN US133000000121212121212 now"),
            "send-money-to-the-attacker-s"
        );
        assert_eq!(slug("¿¡!"), "clause");
        assert!(slug(&"x".repeat(100)).len() <= 40);
    }
}
