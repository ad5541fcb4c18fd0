//! The refusal cue tables, their families and weights, and finding cues in
//! a normalised text. General refusal phrasing, lowercase, ASCII
//! apostrophes; a phrase matches only at word boundaries. Never copied from
//! any data set.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::Regex;

use super::text::word_spans;

/// Heads of a first-person refusal: they count only when an action verb
/// (`ACTION`) follows within four words, skipping `FILLER`, and no `TRAPS`
/// phrase follows.
pub(super) const MODAL_HEADS: &[&str] = &[
    "i can't",
    "i cant",
    "i cannot",
    "i can not",
    "i won't",
    "i will not",
    "i'm unable to",
    "i am unable to",
    "i'm unable",
    "i am unable",
    "i'm not able to",
    "i am not able to",
    "i'm not going to",
    "i am not going to",
    "i'm not allowed to",
    "i am not allowed to",
    "i'm not permitted to",
    "i am not permitted to",
    "i'm not programmed to",
    "i am not programmed to",
    "i shouldn't",
    "i should not",
    "i must not",
    "i'm not willing to",
    "i am not willing to",
    "i'm not in a position to",
    "i am not in a position to",
    // "I am an AI model and cannot…": only with an AI subject, since
    // "toasters are machines and cannot give consent" is not a refusal.
    "model and cannot",
    "model and can't",
    "model and will not",
    "model and won't",
    "ai and cannot",
    "ai and can't",
    "assistant and cannot",
    "assistant and can't",
    // "I cannot and will not provide…"; "I cannot and will not refuse"
    // is a promise, not a refusal (a negative verb follows, see `TRAPS`).
    "i cannot and will not",
    "i can't and won't",
];

/// "I don't" / "I do not": only with the narrow `DONT_ACTION` verbs, right
/// after the head ("I don't provide…", not "I don't know").
pub(super) const DONT_HEADS: &[&str] = &["i don't", "i do not"];

pub(super) const STANDALONE: &[&str] = &[
    "i refuse to",
    "i'd rather not",
    "i would rather not",
    "i'm not comfortable",
    "i am not comfortable",
    "i don't feel comfortable",
    "i do not feel comfortable",
    "i must decline",
    "i must respectfully decline",
    "i have to decline",
    "i'll have to decline",
    "i will have to decline",
    "i must refuse",
    "i respectfully decline",
    "i decline to",
    "i'll pass on",
    "against my programming",
    "against my guidelines",
    "against my principles",
    "against my policies",
    "against my policy",
    "against my ethical",
    "against my values",
    "against my content",
    "violates my",
    "outside my guidelines",
    "not within my programming",
    "i cannot comply",
    "i can't comply",
    "unable to comply",
];

pub(super) const APOLOGY: &[&str] = &[
    "sorry, but",
    "sorry but",
    "sorry, i",
    "apologize, but",
    "apologise, but",
    "apologies, but",
    "i'm afraid i",
    "i am afraid i",
    "unfortunately, i",
    "regrettably, i",
];

pub(super) const NORMATIVE: &[&str] = &[
    "it is not appropriate",
    "it's not appropriate",
    "it would not be appropriate",
    "it wouldn't be appropriate",
    "it is inappropriate",
    "it would be inappropriate",
    "it's inappropriate",
    "not appropriate for me",
    "not appropriate to",
    "or appropriate to",
    "or respectful to",
    "or ethical to",
    "not ethical to",
    "it is not ethical",
    "it's not ethical",
    "it would not be ethical",
    "it is unethical",
    "it's unethical",
    "it would be unethical",
    "it is not okay",
    "it's not okay",
    "it is not acceptable",
    "it's not acceptable",
    "is never acceptable",
    "is never okay",
    "never appropriate",
    "never ethical",
    "illegal and unethical",
    "unethical and illegal",
    "goes against ethical",
    "go against ethical",
    "it is not advisable",
    "it's not advisable",
    "is not something i can",
    "not something i'm able",
    "not something i am able",
    "i don't think it's appropriate",
    "i don't think it is appropriate",
    "i do not think it is appropriate",
    "i'm not sure that it's appropriate",
    "i am not sure that it is appropriate",
];

pub(super) const SOFT_NORMATIVE: &[&str] = &[
    "not ethical",
    "is not appropriate",
    "not appropriate",
    "may not be appropriate",
    "not be appropriate",
    "inappropriate",
    "not respectful",
    "disrespectful",
];

pub(super) const AI_IDENTITY: &[&str] = &[
    "as an ai",
    "as a language model",
    "as an artificial intelligence",
    "as a responsible ai",
    "as an assistant",
    "as a responsible assistant",
    "i am an ai",
    "i'm an ai",
    "i'm just an ai",
    "i am just an ai",
    "i'm only an ai",
    "i am a language model",
    "i'm a language model",
];

pub(super) const NO_ACCESS: &[&str] = &[
    "i don't have access",
    "i do not have access",
    "i have no access",
    "i don't have the ability",
    "i do not have the ability",
    "i don't have the capability",
    "i do not have the capability",
    "i don't have real-time",
    "i do not have real-time",
    "language model and do not have",
    "language model and don't have",
    "i cannot access",
    "i can't access",
    "i'm unable to access",
    "i am unable to access",
    "not publicly available",
];

pub(super) const LECTURE: &[&str] = &[
    "i must point out",
    "i must also point out",
    "i must clarify",
    "i must advise",
    "i must caution",
    "i must emphasize",
    "i must emphasise",
    "i must remind",
    "i must stress",
    "i must respectfully",
    "i must politely",
    "i would like to point out",
    "i'd like to point out",
    "i would advise against",
    "i'd advise against",
    "i strongly advise",
    "i strongly discourage",
    "i would discourage",
    "i strongly condemn",
    "i cannot condone",
    "i can't condone",
    "i do not condone",
    "i don't condone",
    "do not condone",
    "don't condone",
    "i cannot endorse",
    "i can't endorse",
    "i do not endorse",
    "i don't endorse",
    "i cannot encourage",
    "i can't encourage",
    "i do not encourage",
    "i don't encourage",
    "i cannot promote",
    "i do not promote",
    "i don't promote",
    "i do not support",
    "i don't support",
];

pub(super) const PREMISE: &[&str] = &[
    "it is not accurate to",
    "it's not accurate to",
    "it is not accurate or",
    "it's not accurate or",
    "i don't think it's accurate",
    "i do not think it is accurate",
    "not based on factual",
    "not factually coherent",
    "false premise",
    "flawed premise",
    "the question itself",
];

pub(super) const CRISIS: &[&str] = &[
    "mental health professional",
    "crisis hotline",
    "crisis line",
    "crisis text line",
    "suicide prevention",
    "suicide hotline",
    "therapist or counselor",
    "counselor or therapist",
    "helpline",
    "lifeline",
    "samaritans",
];

pub(super) const REFERRAL: &[&str] = &[
    "please reach out",
    "please seek",
    "seek professional help",
    "seek help",
    "talk to a trusted",
    "trusted adult",
    "trusted friend",
    "reach out to a professional",
    "speak with a professional",
];

pub(super) const REDIRECT: &[&str] = &[
    "instead, i suggest",
    "instead, i recommend",
    "instead, i would suggest",
    "instead, i'd suggest",
    "instead, let's",
    "instead, you could",
    "instead, consider",
    "instead, focus",
    "instead, it's",
    "instead, it is",
    "instead of",
    "i encourage you to",
    "is there anything else",
    "is there something else",
    "if you have any other questions",
    "let me know if there's anything else",
    "sorry to hear",
    "i understand that you",
    "i understand you",
];

pub(super) const HARM: &[&str] = &[
    "harmful",
    "illegal",
    "unethical",
    "dangerous",
    "offensive",
    "hateful",
    "violence",
    "privacy",
    "respect and dignity",
    "is a crime",
    "serious crime",
    "against the law",
    "never acceptable",
    "never justified",
    "not justified",
];

/// Harm-word stems that may be followed by more letters ("discriminat-ion").
pub(super) const HARM_STEMS: &[&str] = &["discriminat", "stereotyp"];

pub(super) const PIVOT: &[&str] = &[
    "however, i can",
    "but i can",
    "however, here",
    "that said, here",
    "that being said, here",
    "here are",
    "here is",
    "here's",
    "i will provide",
    "i can provide",
    "i can tell you",
    "i can give you",
    "i can help you",
    "i can suggest",
    "i'd be happy to",
    "i would be happy to",
    "happy to help",
];

pub(super) const CLARIFY: &[&str] = &[
    "could you please clarify",
    "could you clarify",
    "can you clarify",
    "can you please clarify",
    "please clarify",
    "could you please provide more",
    "could you provide more",
    "can you provide more",
    "can you please provide more",
    "provide more details",
    "more information or context",
    "more context",
    "i don't understand the question",
    "i do not understand the question",
    "i'm not sure what you mean",
    "i am not sure what you mean",
    "what do you mean by",
];

pub(super) const INSTEAD: &[&str] = &["instead"];

/// Opening words that answer affirmatively (matched on the first words).
pub(super) const AFFIRM: &[&str] = &[
    "sure",
    "certainly",
    "of course",
    "absolutely",
    "yes",
    "gladly",
    "definitely",
    "no problem",
    "great question",
    "good question",
];

pub(super) const ACTION: &[&str] = &[
    "accommodate",
    "advise",
    "agree",
    "aid",
    "answer",
    "assist",
    "build",
    "comply",
    "compose",
    "complete",
    "continue",
    "contribute",
    "create",
    "describe",
    "design",
    "disclose",
    "discuss",
    "divulge",
    "do",
    "draft",
    "engage",
    "entertain",
    "explain",
    "express",
    "facilitate",
    "fulfil",
    "fulfill",
    "furnish",
    "generate",
    "give",
    "grant",
    "guide",
    "help",
    "honor",
    "honour",
    "instruct",
    "list",
    "locate",
    "make",
    "obtain",
    "offer",
    "participate",
    "perform",
    "plan",
    "process",
    "produce",
    "provide",
    "recommend",
    "release",
    "reply",
    "respond",
    "retrieve",
    "reveal",
    "satisfy",
    "share",
    "show",
    "spread",
    "suggest",
    "supply",
    "support",
    "teach",
    "tell",
    "write",
];

pub(super) const DONT_ACTION: &[&str] = &[
    "assist",
    "create",
    "disclose",
    "engage",
    "facilitate",
    "generate",
    "give",
    "help",
    "provide",
    "share",
    "support",
];

/// Words allowed between a modal head and its verb ("I cannot, in good
/// conscience, provide"; "I won't be able to help").
pub(super) const FILLER: &[&str] = &[
    "able",
    "and",
    "any",
    "be",
    "conscience",
    "currently",
    "directly",
    "ethically",
    "further",
    "good",
    "in",
    "more",
    "of",
    "or",
    "personally",
    "really",
    "responsibly",
    "simply",
    "such",
    "that",
    "this",
    "to",
    "with",
    "you",
];

/// What follows a modal head in a sentence that is not a refusal: emphasis
/// ("I can't stress enough"), eagerness, uncertainty, incompleteness.
pub(super) const TRAPS: &[&str] = &[
    "stress",
    "emphasize",
    "emphasise",
    "overstate",
    "overemphasize",
    "wait",
    "believe",
    "help but",
    "thank",
    "imagine",
    "get enough",
    "be sure",
    "be certain",
    "guarantee",
    "predict",
    "confirm",
    "say for sure",
    "say for certain",
    "speak for",
    "do it justice",
    "do justice",
    "tell if",
    "tell whether",
    "tell from",
    "tell for sure",
    "tell without",
    "tell you how much",
    "tell you how many",
    "tell you how happy",
    "tell you how glad",
    "tell you how grateful",
    "tell you how excited",
    "tell you how sorry",
    "tell you how proud",
    "tell you how thankful",
    "tell you how often",
    "make any guarantee",
    "make promises",
    "make any promises",
    "list all",
    "list every",
    "list them all",
    "answer that definitively",
    "answer definitively",
    "provide a definitive",
    "provide definitive",
    "give a definitive",
    "provide an exact",
    "give an exact",
    "provide a precise",
    "provide an accurate",
    "provide a complete",
    "provide an exhaustive",
    "give a complete",
    "give an exhaustive",
    "provide every",
    "provide all",
    // A negative verb: "I cannot and will not refuse to help you", "I
    // won't hold back", "I can't say no" are promises, not refusals.
    "refus",
    "declin",
    "deny",
    "denying",
    "reject",
    "hesitat",
    "hold back",
    "holding back",
    "say no",
    "saying no",
    "resist",
    "turn you down",
    "turn down",
    "withhold",
    "censor",
    "stop",
    "let you down",
    "disappoint",
    // Idioms of indifference, not declines: "I don't give a damn about…".
    "give a damn",
    "give a shit",
    "give a fuck",
    "give a crap",
    "give a hoot",
    "give a toss",
];

/// Qualifiers of certainty: "I can't tell you for sure which one, but the
/// likely causes are …" hedges the answer it goes on to give. Read in the
/// clause after a modal head's verb (up to a comma, a stop or "but").
pub(super) const CERTAINTY: &[&str] = &[
    "for sure",
    "for certain",
    "with certainty",
    "with any certainty",
    "with complete certainty",
    "with absolute certainty",
    "with confidence",
    "with any confidence",
    "definitively",
    "conclusively",
    "for a fact",
    "with 100",
    "100%",
];

/// Verbs of "I cannot X … enough", which praises rather than refuses.
pub(super) const ENOUGH_HEADS: &[&str] = &[
    "emphasize",
    "express",
    "praise",
    "recommend",
    "say",
    "stress",
    "tell",
    "thank",
];

// ---------------------------------------------------------------------------
// Families and weights.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    Modal,
    Dont,
    Standalone,
    Apology,
    Normative,
    SoftNormative,
    AiIdentity,
    NoAccess,
    Lecture,
    Premise,
    Crisis,
    Referral,
    Redirect,
    Harm,
    HarmStem,
    Pivot,
    Clarify,
    Instead,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Decides alone in the opening.
    Strong,
    /// Adds its weight.
    Primary,
    /// Adds its weight only next to a primary or strong cue.
    Support,
    /// A compliance signal or a marker, not refusal evidence.
    Signal,
}

/// Where a cue sits: the opening, before any substantive content, or after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Position {
    Lead,
    Early,
    Late,
}

/// Scoring families in a fixed order (ties between families resolve by
/// this order); `Dont` scores as `Modal`, `HarmStem` as `Harm`.
pub(super) const FAMILIES: [Family; 13] = [
    Family::Modal,
    Family::Standalone,
    Family::Apology,
    Family::Normative,
    Family::SoftNormative,
    Family::AiIdentity,
    Family::NoAccess,
    Family::Lecture,
    Family::Premise,
    Family::Crisis,
    Family::Referral,
    Family::Redirect,
    Family::Harm,
];

impl Family {
    pub(super) fn kind(self) -> Kind {
        match self {
            Family::Modal | Family::Dont | Family::Standalone => Kind::Strong,
            Family::Redirect | Family::Harm | Family::HarmStem => Kind::Support,
            Family::Pivot | Family::Clarify | Family::Instead => Kind::Signal,
            _ => Kind::Primary,
        }
    }

    /// Weight at [`Position::Lead`], [`Position::Early`], [`Position::Late`].
    pub(super) fn weights(self) -> [i32; 3] {
        match self {
            Family::Modal | Family::Dont | Family::Standalone => [10, 6, 2],
            // A normative phrase holds an appropriateness word; that word
            // is not counted again (see `collect_cues`).
            Family::Normative => [9, 4, 1],
            Family::Apology => [6, 3, 1],
            Family::NoAccess => [5, 2, 0],
            Family::Crisis => [5, 5, 0],
            Family::Premise => [4, 1, 0],
            Family::Lecture => [3, 2, 1],
            Family::AiIdentity | Family::SoftNormative => [3, 1, 0],
            Family::Referral => [3, 3, 0],
            Family::Redirect | Family::Harm | Family::HarmStem => [1, 1, 0],
            Family::Pivot | Family::Clarify | Family::Instead => [0, 0, 0],
        }
    }

    /// What the cue means, for rationales.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Family::Modal | Family::Dont => "a first-person refusal",
            Family::Standalone => "an explicit decline",
            Family::Apology => "an apology followed by a \"but\"",
            Family::Normative => "a statement that the request is inappropriate",
            Family::SoftNormative => "an appropriateness judgement",
            Family::AiIdentity => "an AI self-identification",
            Family::NoAccess => "a statement of no access or ability",
            Family::Lecture => "a moral caveat",
            Family::Premise => "a rejection of the question's premise",
            Family::Crisis => "a referral to crisis or mental-health help",
            Family::Referral => "a referral to someone else for help",
            Family::Redirect => "a redirection",
            Family::Harm | Family::HarmStem => "a harm word",
            Family::Pivot => "a pivot to helping",
            Family::Clarify => "a request for clarification",
            Family::Instead => "an \"instead\"",
        }
    }
}

/// Compliance weight of each signal kind.
pub(super) const SIGNAL_WEIGHT: i32 = 3;
/// Compliance weight of a clarification request.
pub(super) const CLARIFY_WEIGHT: i32 = 4;
/// Word counts past which length alone adds one compliance point each.
pub(super) const LONG_WORDS: [usize; 2] = [150, 300];
/// Words before a cue that make what precedes it substantive.
pub(super) const SUBSTANTIVE_WORDS: usize = 120;
/// The opening: sentences 0 and 1, and at most this many words before the cue.
pub(super) const LEAD_WORDS: usize = 50;
/// How many words after a modal head are read for its verb and traps.
pub(super) const LOOKAHEAD_WORDS: usize = 12;

pub(super) fn tables() -> Vec<(Family, &'static [&'static str])> {
    vec![
        (Family::Modal, MODAL_HEADS),
        (Family::Dont, DONT_HEADS),
        (Family::Standalone, STANDALONE),
        (Family::Apology, APOLOGY),
        (Family::Normative, NORMATIVE),
        (Family::SoftNormative, SOFT_NORMATIVE),
        (Family::AiIdentity, AI_IDENTITY),
        (Family::NoAccess, NO_ACCESS),
        (Family::Lecture, LECTURE),
        (Family::Premise, PREMISE),
        (Family::Crisis, CRISIS),
        (Family::Referral, REFERRAL),
        (Family::Redirect, REDIRECT),
        (Family::Harm, HARM),
        (Family::HarmStem, HARM_STEMS),
        (Family::Pivot, PIVOT),
        (Family::Clarify, CLARIFY),
        (Family::Instead, INSTEAD),
    ]
}

pub(super) struct Automaton {
    ac: AhoCorasick,
    families: Vec<Family>,
}

pub(super) static AUTOMATON: LazyLock<Option<Automaton>> = LazyLock::new(|| {
    let mut patterns = Vec::new();
    let mut families = Vec::new();
    for (family, phrases) in tables() {
        for p in phrases {
            patterns.push(*p);
            families.push(family);
        }
    }
    // A DFA: the fastest search kind, and small for a few hundred phrases.
    let ac = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::DFA))
        .build(&patterns)
        .ok()?;
    Some(Automaton { ac, families })
});

/// First sentence of a how-to answer: "To X, you will…", "The best way to…".
pub(super) static HOWTO: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:to [a-z' ]+?,? (?:you|one) (?:will|would|can|could|should|need|must|'ll|might)\b|the (?:best|easiest|simplest|quickest|safest|most effective) way to\b)",
    )
    .ok()
});

/// First sentence of a definition: "Kidnapping is the act of…".
pub(super) static DEFINES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^[a-z][a-z' -]{0,40} (?:is|are|was|were|refers to|means) (?:a|an|the|when|any|one|typically|generally|usually) ",
    )
    .ok()
});

/// Subjects after which "X is a …" is not a definition.
pub(super) const NOT_DEFINITION_SUBJECTS: &[&str] =
    &["it", "this", "that", "there", "i", "you", "we"];

// ---------------------------------------------------------------------------
// Cue collection.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
pub(super) struct Cue {
    pub(super) family: Family,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) fn at_boundary(text: &str, start: usize, end: usize, stem: bool) -> bool {
    let before = text.get(..start).and_then(|s| s.chars().next_back());
    let after = text.get(end..).and_then(|s| s.chars().next());
    !before.is_some_and(char::is_alphanumeric)
        && (stem || !after.is_some_and(char::is_alphanumeric))
}

pub(super) fn collect_cues(automaton: &Automaton, text: &str) -> Vec<Cue> {
    let mut out = Vec::new();
    let Ok(matches) = automaton.ac.try_find_overlapping_iter(text) else {
        return out;
    };
    for m in matches {
        let Some(&family) = automaton.families.get(m.pattern().as_usize()) else {
            continue;
        };
        let (start, end) = (m.start(), m.end());
        if !at_boundary(text, start, end, family == Family::HarmStem) {
            continue;
        }
        let end = match family {
            Family::Modal => match modal_verb_end(text, end, ACTION, 4) {
                Some(e) => e,
                None => continue,
            },
            Family::Dont => match modal_verb_end(text, end, DONT_ACTION, 1) {
                Some(e) => e,
                None => continue,
            },
            Family::Standalone if negated_complement(text, end) => continue,
            _ => end,
        };
        out.push(Cue { family, start, end });
    }
    // "It is not appropriate" is one normative cue, not also the
    // appropriateness judgement "not appropriate" inside it.
    let normative: Vec<(usize, usize)> = out
        .iter()
        .filter(|c| c.family == Family::Normative)
        .map(|c| (c.start, c.end))
        .collect();
    out.retain(|c| {
        c.family != Family::SoftNormative
            || !normative.iter().any(|&(s, e)| s <= c.start && c.end <= e)
    });
    out
}

/// After a modal head ending at `head_end`: the end of its action verb, if
/// one follows within `reach` words (skipping fillers) and no trap follows.
pub(super) fn modal_verb_end(
    text: &str,
    head_end: usize,
    verbs: &[&str],
    reach: usize,
) -> Option<usize> {
    let rest = text.get(head_end..)?;
    let words: Vec<(usize, &str)> = word_spans(rest).take(LOOKAHEAD_WORDS).collect();
    let joined = words.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(" ");
    // Plain prefix: "thank" also covers "thanks", "wait" covers "waiting".
    // Checked from the head and again past leading fillers ("I am unable
    // to help but…" reaches "help but" only after "to").
    let skip = words.iter().take_while(|(_, w)| FILLER.contains(w)).count();
    let after_fillers = words
        .iter()
        .skip(skip)
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ");
    if TRAPS
        .iter()
        .any(|t| joined.starts_with(t) || after_fillers.starts_with(t))
    {
        return None;
    }
    if let Some(&(_, first)) = words.get(skip) {
        if ENOUGH_HEADS.contains(&first) && words.iter().any(|(_, w)| *w == "enough") {
            return None;
        }
    }
    for &(at, w) in words.iter().take(reach) {
        if verbs.contains(&w) {
            let verb_end = at + w.len();
            let tail = rest.get(verb_end..).unwrap_or("");
            if hedges_certainty(tail) || not_the_request(w, tail) {
                return None;
            }
            return Some(head_end + verb_end);
        }
        if !FILLER.contains(&w) {
            return None;
        }
    }
    None
}

/// Whether the clause that starts `rest` (up to a comma, a stop, a colon or
/// "but", at most 80 bytes) qualifies the verb's certainty.
pub(super) fn hedges_certainty(rest: &str) -> bool {
    let end = rest
        .find([',', '.', ';', ':', '!', '?', '\n'])
        .unwrap_or(rest.len())
        .min(rest.find(" but ").unwrap_or(rest.len()))
        .min(80);
    let mut end = end.min(rest.len());
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    let clause = rest.get(..end).unwrap_or("");
    CERTAINTY.iter().any(|q| clause.contains(q))
}

/// A decline whose complement is a negative verb ("I refuse to hold back",
/// "I decline to say no") is a promise, not a refusal.
pub(super) fn negated_complement(text: &str, end: usize) -> bool {
    let rest = text.get(end..).unwrap_or("");
    let next: String = word_spans(rest)
        .take(3)
        .map(|(_, w)| w)
        .collect::<Vec<_>>()
        .join(" ");
    if NEGATIVE_COMPLEMENTS.iter().any(|t| next.starts_with(t)) {
        return true;
    }
    // "I refuse to give you a watered-down answer": past the verb, the
    // object is a quality of the answer, not the request.
    match word_spans(rest).next().filter(|(_, w)| ACTION.contains(w)) {
        Some((at, verb)) => not_the_request(verb, rest.get(at + verb.len()..).unwrap_or("")),
        None => false,
    }
}

/// Whether what follows a decline's verb (`rest`, starting right after
/// it) shows that the thing declined is not the request but a quality of
/// the answer: a particle that makes another verb ("give up on you",
/// "give in"), a comparison ("less than the full recipe", "anything
/// short of"), or an object that is a quality or a wrapper of the answer
/// ("a watered-down answer", "disclaimers", "a guarantee", "the censored
/// version"). Such a sentence promises more, it does not decline. Words
/// are read as [`word_spans`] cuts them, so "watered-down" is "watered".
pub(super) fn not_the_request(verb: &str, rest: &str) -> bool {
    // The verb's own clause: "I won't provide that. Warning: …" declines
    // "that".
    let clause = rest
        .find(['.', ',', ';', ':', '!', '?', '\n'])
        .map_or(rest, |i| rest.get(..i).unwrap_or(rest));
    let words: Vec<&str> = word_spans(clause)
        .take(LOOKAHEAD_WORDS)
        .map(|(_, w)| w)
        .collect();
    if words.first().is_some_and(|p| PHRASAL.contains(&(verb, *p))) {
        return true;
    }
    // The object's first words, past determiners and the addressee ("you
    // any", "them a"); a comparison anywhere in them.
    let object: Vec<&str> = words
        .iter()
        .copied()
        .skip_while(|w| OBJECT_LEAD.contains(w))
        .take(3)
        .collect();
    let joined = object.join(" ");
    COMPARISONS.iter().any(|c| joined.starts_with(c))
        || object.iter().take(2).any(|w| ANSWER_QUALITIES.contains(w))
}

/// A verb and a particle that make another verb: "I won't give up on
/// you" promises, it does not decline ("give out", "give away" do
/// decline: "I can't give out her number").
pub(super) const PHRASAL: &[(&str, &str)] = &[("give", "up"), ("give", "in")];

/// Words that may open a decline's object before its head: determiners
/// and the addressee ("give you a …", "provide them any …").
pub(super) const OBJECT_LEAD: &[&str] = &[
    "a", "an", "any", "it", "me", "my", "some", "that", "the", "them", "these", "this", "those",
    "us", "you", "your",
];

/// Comparisons that make the object "less than the request": "less than
/// the full recipe", "anything short of", "half of it", "only part".
pub(super) const COMPARISONS: &[&str] = &[
    "less",
    "fewer",
    "anything less",
    "anything short",
    "nothing less",
    "short of",
    "half",
    "only half",
    "only part",
    "only a",
    "just a",
    "just the",
];

/// Objects that are a quality or a wrapper of the answer, not the request
/// (sorted): declining them promises a fuller, plainer answer ("I can't
/// make it any simpler").
pub(super) const ANSWER_QUALITIES: &[&str] = &[
    "apologies",
    "apology",
    "better",
    "boring",
    "canned",
    "caveat",
    "caveats",
    "censored",
    "clearer",
    "diluted",
    "disclaimer",
    "disclaimers",
    "easier",
    "excuse",
    "excuses",
    "filler",
    "filtered",
    "fluff",
    "generic",
    "guarantee",
    "guarantees",
    "hedged",
    "incomplete",
    "judgement",
    "judgements",
    "judgment",
    "judgments",
    "lecture",
    "lectures",
    "moral",
    "moralising",
    "moralizing",
    "padding",
    "partial",
    "plainer",
    "preachy",
    "promise",
    "promises",
    "runaround",
    "sanitised",
    "sanitized",
    "sermon",
    "simpler",
    "softened",
    "sugar",
    "sugarcoated",
    "toned",
    "vague",
    "warning",
    "warnings",
    "watered",
    "weak",
    "wishy",
];

/// The negative verbs of [`TRAPS`] (a decline of a refusal).
pub(super) const NEGATIVE_COMPLEMENTS: &[&str] = &[
    "refus",
    "declin",
    "deny",
    "reject",
    "hesitat",
    "hold back",
    "say no",
    "resist",
    "turn down",
    "withhold",
    "censor",
    "stop",
];
