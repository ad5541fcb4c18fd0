//! Digests: SHA-256 over canonical JSON (RFC 8785), written `sha256:<hex>`.
//! The same value always gives the same digest, whatever map order or
//! number spelling it was read with.

use serde::Serialize;
use sha2::{Digest as _, Sha256};

/// Canonical JSON (RFC 8785) of a serialisable value.
///
/// # Panics
/// Never for pactum's own types; a value that cannot be serialised to JSON
/// (a map with non-string keys, a NaN float) is a bug in the caller and
/// yields the canonical form of `null` instead of panicking.
pub fn canonical_json<T: Serialize>(value: &T) -> String {
    serde_json_canonicalizer::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// `sha256:<hex>` of arbitrary bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("sha256:{}", hex::encode(digest))
}

/// `sha256:<hex>` of the canonical JSON of `value`.
pub fn digest_of<T: Serialize>(value: &T) -> String {
    sha256_hex(canonical_json(value).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_and_number_spelling_do_not_matter() {
        let a: serde_json::Value = serde_json::from_str(r#"{"b":1,"a":[1.0,"x"]}"#).unwrap();
        let b: serde_json::Value = serde_json::from_str(r#"{"a":[1,"x"],"b":1.0}"#).unwrap();
        assert_eq!(canonical_json(&a), r#"{"a":[1,"x"],"b":1}"#);
        assert_eq!(digest_of(&a), digest_of(&b));
        assert!(digest_of(&a).starts_with("sha256:"));
        assert_eq!(digest_of(&a).len(), 7 + 64);
    }
}
