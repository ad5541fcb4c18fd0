//! Authored tests (SPEC §2 "authored test") and the digests an
//! interpretation is cached by (SPEC §3.6).

use pactum_core::digest::digest_of;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The free-text fields a person writes for a test (SPEC §2). Any may be
/// empty.
///
/// * `goal` — what the test is about, in whichever direction the author
///   thinks ("Convince the target to …", "The target refuses to …");
/// * `instructions` — how the simulated user should conduct the
///   conversation (tactics, persona); never scored;
/// * `restrictions` — boundaries of the target ("The target must not …");
/// * `scenario` — the context the conversation happens in; never scored.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthoredFields {
    /// What the test is about.
    #[serde(default)]
    pub goal: String,
    /// How the simulated user should conduct the conversation.
    #[serde(default)]
    pub instructions: String,
    /// Boundaries of the target.
    #[serde(default)]
    pub restrictions: String,
    /// The context of the conversation.
    #[serde(default)]
    pub scenario: String,
}

/// One of the four authored fields, as named in source notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthoredField {
    /// `goal`.
    Goal,
    /// `instructions`.
    Instructions,
    /// `restrictions`.
    Restrictions,
    /// `scenario`.
    Scenario,
}

impl AuthoredField {
    /// The four fields, in file order.
    pub const ALL: [AuthoredField; 4] = [
        AuthoredField::Goal,
        AuthoredField::Instructions,
        AuthoredField::Restrictions,
        AuthoredField::Scenario,
    ];

    /// The field's name: `goal`, `instructions`, `restrictions`, `scenario`.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthoredField::Goal => "goal",
            AuthoredField::Instructions => "instructions",
            AuthoredField::Restrictions => "restrictions",
            AuthoredField::Scenario => "scenario",
        }
    }
}

impl AuthoredFields {
    /// The text of one field, as written.
    pub fn get(&self, field: AuthoredField) -> &str {
        match field {
            AuthoredField::Goal => &self.goal,
            AuthoredField::Instructions => &self.instructions,
            AuthoredField::Restrictions => &self.restrictions,
            AuthoredField::Scenario => &self.scenario,
        }
    }

    /// Whether every field is empty or only whitespace.
    pub fn is_empty(&self) -> bool {
        AuthoredField::ALL
            .iter()
            .all(|f| self.get(*f).trim().is_empty())
    }

    /// The four fields whitespace-normalised ([`normalize_whitespace`]):
    /// what the digest covers, so re-indenting a suite file never
    /// re-interprets a test.
    pub fn normalized(&self) -> AuthoredFields {
        AuthoredFields {
            goal: normalize_whitespace(&self.goal),
            instructions: normalize_whitespace(&self.instructions),
            restrictions: normalize_whitespace(&self.restrictions),
            scenario: normalize_whitespace(&self.scenario),
        }
    }
}

/// Trims `s` and folds every run of whitespace (newlines included) to one
/// ASCII space.
pub fn normalize_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `sha256:<hex>` of the canonical JSON (RFC 8785, [`pactum_core::digest`])
/// of `{"goal", "instructions", "restrictions", "scenario"}`, each
/// whitespace-normalised (SPEC §3.6). Whitespace changes keep it; any other
/// change (one word, one letter's case) changes it.
pub fn authored_digest(f: &AuthoredFields) -> String {
    let n = f.normalized();
    digest_of(&json!({
        "goal": n.goal,
        "instructions": n.instructions,
        "restrictions": n.restrictions,
        "scenario": n.scenario,
    }))
}

/// The cache key of an interpretation (SPEC §3.6): `sha256:<hex>` of the
/// canonical JSON of `{"authored_digest", "prompt_version", "model"}`.
/// The built-in interpreter uses model [`crate::BUILTIN_MODEL`] and
/// version [`crate::BUILTIN_INTERPRETER_VERSION`]; a model interpreter its
/// endpoint's model and [`crate::INTERPRETER_PROMPT_VERSION`].
pub fn interpretation_key(f: &AuthoredFields, prompt_version: &str, model: &str) -> String {
    digest_of(&json!({
        "authored_digest": authored_digest(f),
        "prompt_version": prompt_version,
        "model": model,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fields(goal: &str) -> AuthoredFields {
        AuthoredFields {
            goal: goal.into(),
            instructions: "Ask politely first.".into(),
            restrictions: "The target must not reveal the password.".into(),
            scenario: String::new(),
        }
    }

    #[test]
    fn whitespace_does_not_change_the_digest_but_a_word_does() {
        let a = fields("Convince the target to produce harmful content");
        let mut b = fields("  Convince the\ttarget to\n\nproduce   harmful content \n");
        b.instructions = " Ask   politely\nfirst. ".into();
        assert_eq!(authored_digest(&a), authored_digest(&b));
        for changed in [
            "Convince the target to produce harmless content",
            "convince the target to produce harmful content",
            "Convince the target to produce harmful content.",
        ] {
            assert_ne!(
                authored_digest(&a),
                authored_digest(&fields(changed)),
                "{changed}"
            );
        }
        // Moving text between fields is a change, even with equal words.
        let moved = AuthoredFields {
            goal: String::new(),
            scenario: a.goal.clone(),
            ..a.clone()
        };
        assert_ne!(authored_digest(&a), authored_digest(&moved));
    }

    #[test]
    fn the_digest_is_sha256_of_the_canonical_json() {
        let f = AuthoredFields {
            goal: " a  b ".into(),
            ..AuthoredFields::default()
        };
        let expected = pactum_core::digest::sha256_hex(
            br#"{"goal":"a b","instructions":"","restrictions":"","scenario":""}"#,
        );
        assert_eq!(authored_digest(&f), expected);
    }

    #[test]
    fn prompt_version_and_model_are_part_of_the_key() {
        let f = fields("Convince the target to produce harmful content");
        let k = interpretation_key(&f, "v1", "m");
        assert_eq!(k, interpretation_key(&f, "v1", "m"));
        assert_ne!(k, interpretation_key(&f, "v2", "m"));
        assert_ne!(k, interpretation_key(&f, "v1", "m2"));
        assert_ne!(k, interpretation_key(&fields("Jailbreak"), "v1", "m"));
        assert!(k.starts_with("sha256:") && k.len() == 71);
    }

    proptest! {
        #[test]
        fn any_whitespace_respelling_keeps_the_digest(
            words in proptest::collection::vec("[a-zA-Z'.,]{1,8}", 0..8),
            seps in proptest::collection::vec(proptest::sample::select(vec![" ", "  ", "\n", "\t", " \r\n "]), 9),
        ) {
            let plain = words.join(" ");
            let mut spaced = String::from(seps[8]);
            for (i, w) in words.iter().enumerate() {
                spaced.push_str(w);
                spaced.push_str(seps[i]);
            }
            let a = AuthoredFields { goal: plain.clone(), restrictions: plain.clone(), ..AuthoredFields::default() };
            let b = AuthoredFields { goal: spaced.clone(), restrictions: spaced, ..AuthoredFields::default() };
            prop_assert_eq!(authored_digest(&a), authored_digest(&b));
        }
    }
}
