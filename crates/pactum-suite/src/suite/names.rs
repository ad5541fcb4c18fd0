//! The shapes of names a suite file uses: test and target names, variable
//! names, environment variable names, HTTP header names; and telling an
//! environment variable's NAME from an API key pasted in its place (SPEC §4:
//! keys come from the environment and never reach a report).

/// Test ids and target names: `[A-Za-z0-9._-]+`.
pub(crate) fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Template variable names: `[A-Za-z_][A-Za-z0-9_]*` (what `{{ name }}`
/// can read).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// HTTP header names (RFC 9110 `token`).
pub(crate) fn is_header_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// What is wrong with a value given as an environment variable's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnvNameProblem {
    /// It looks like a key itself.
    LiteralKey,
    /// It is not a variable name.
    NotAName,
}

/// Checks a value meant to be an environment variable's NAME
/// (`[A-Za-z_][A-Za-z0-9_]*`, as POSIX shells accept).
pub(crate) fn check_env_name(s: &str) -> Result<(), EnvNameProblem> {
    if pactum_core::secret::looks_like_key(s) {
        return Err(EnvNameProblem::LiteralKey);
    }
    if is_identifier(s) {
        Ok(())
    } else {
        Err(EnvNameProblem::NotAName)
    }
}

/// Header names (case-insensitive) whose values are usually secrets.
pub(crate) fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "authorization"
        || n == "cookie"
        || n == "proxy-authorization"
        || n.contains("key")
        || n.contains("token")
        || n.contains("secret")
}

/// Environment variable names (case-insensitive) whose values are usually
/// secrets.
pub(crate) fn is_secret_var(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["key", "token", "secret", "password", "passwd"]
        .iter()
        .any(|w| n.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names() {
        for ok in [
            "OPENAI_API_KEY",
            "_X",
            "a1",
            "TOKEN",
            "MY_VERY_LONG_VARIABLE_NAME_2024_V2",
        ] {
            assert_eq!(check_env_name(ok), Ok(()), "{ok}");
        }
        for key in [
            "sk-proj-abc",
            "sk_live_123",
            "Bearer abc",
            "ghp_0123456789",
            "AIzaSyA",
            "a8Fk2LmQ9zR4tY7uW1xC3vB6nM0pQ5sD",
            "0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(
                check_env_name(key),
                Err(EnvNameProblem::LiteralKey),
                "{key}"
            );
        }
        for bad in ["", "1X", "MY-KEY", "A B", "é"] {
            assert_eq!(check_env_name(bad), Err(EnvNameProblem::NotAName), "{bad}");
        }
    }

    #[test]
    fn ids_and_headers() {
        assert!(is_id("refund-within.policy_2"));
        assert!(!is_id("a b") && !is_id("") && !is_id("a/b"));
        assert!(is_identifier("order_id") && !is_identifier("order-id") && !is_identifier("1a"));
        assert!(is_header_name("X-Api-Key") && !is_header_name("X Api") && !is_header_name("a:b"));
        assert!(is_secret_header("Authorization") && is_secret_header("X-API-Key"));
        assert!(!is_secret_header("Content-Type"));
        assert!(is_secret_var("DB_PASSWORD") && !is_secret_var("MODE"));
    }
}
