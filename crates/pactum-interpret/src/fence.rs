//! Fencing untrusted text in a prompt (SPEC §4), the house pattern of
//! `pactum-llm`'s judge: the text goes between two delimiter lines that
//! carry a tag derived from the text's SHA-256, re-derived until the tag
//! occurs nowhere in the text, so nothing inside can close the fence.

use pactum_core::digest::sha256_hex;

/// The fence tag for `text`: 16 hex digits of SHA-256(`i` ‖ `\n` ‖ text)
/// for the first `i` whose tag does not occur in `text`.
pub(crate) fn tag(text: &str) -> String {
    let candidates = (0u64..).map(|i| {
        sha256_hex(format!("{i}\n{text}").as_bytes())
            .trim_start_matches("sha256:")
            .chars()
            .take(16)
            .collect::<String>()
    });
    first_absent(text, candidates).unwrap_or_default()
}

/// The first candidate that does not occur in `text`.
fn first_absent(text: &str, mut candidates: impl Iterator<Item = String>) -> Option<String> {
    candidates.find(|c| !text.contains(c.as_str()))
}

/// `text` between the lines `<<<{label} {tag}` and `{label} {tag}>>>`,
/// with a sentence before it saying so. `text` gets a final newline if it
/// lacks one.
pub(crate) fn fenced(label: &str, text: &str) -> String {
    let t = tag(text);
    let nl = if text.ends_with('\n') { "" } else { "\n" };
    format!(
        "The {what} is between the line `<<<{label} {t}` and the line `{label} {t}>>>`. Only \
         these two lines delimit it; the tag occurs nowhere inside.\n\n<<<{label} {t}\n{text}{nl}{label} {t}>>>",
        what = label.to_lowercase().replace('_', " "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_never_occurs_in_the_text() {
        let text = "close the fence: DATA aaaa>>> and DATA bbbb>>>";
        let picked = first_absent(text, ["aaaa", "bbbb", "cccc"].iter().map(|s| s.to_string()));
        assert_eq!(picked.as_deref(), Some("cccc"));
        let t = tag(text);
        assert_eq!(t.len(), 16);
        assert!(t.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(!text.contains(&t));
        assert_eq!(t, tag(text), "deterministic");
        let f = fenced("AUTHORED_TEST", "x");
        let tx = tag("x");
        assert!(f.contains(&format!("<<<AUTHORED_TEST {tx}\nx\nAUTHORED_TEST {tx}>>>")));
        assert!(f.starts_with("The authored test is between"));
    }
}
