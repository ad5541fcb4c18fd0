//! Field addresses given on the command line: a JSON pointer (RFC 6901,
//! `/info/task/id`) or, for convenience, a plain top-level key (`id`).

use serde_json::Value;

use crate::error::ImportError;

/// A parsed field address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pointer {
    /// The RFC 6901 form, usable with [`Value::pointer`].
    text: String,
    /// The decoded reference tokens.
    tokens: Vec<String>,
}

impl Pointer {
    /// Parses `s` as given to `option` (named in errors). A value that does
    /// not start with `/` is a plain top-level key; the empty string is the
    /// whole record.
    pub(crate) fn parse(option: &'static str, s: &str) -> Result<Self, ImportError> {
        if !s.is_empty() && !s.starts_with('/') {
            return Ok(Pointer::key(s));
        }
        let tokens =
            pactum_core::json::pointer_tokens(s).map_err(|reason| ImportError::BadPointer {
                option,
                pointer: crate::error::quote(s),
                reason,
            })?;
        Ok(Pointer {
            text: s.to_string(),
            tokens,
        })
    }

    /// The pointer to top-level member `key`.
    pub(crate) fn key(key: &str) -> Self {
        Pointer {
            text: format!("/{}", pactum_core::json::escape_pointer_token(key)),
            tokens: vec![key.to_string()],
        }
    }

    /// The RFC 6901 text.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The decoded tokens.
    pub(crate) fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The value at this pointer in `v`.
    pub(crate) fn get<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.pointer(&self.text)
    }

    /// Takes the value at this pointer out of `v`: removed from its parent
    /// object, or replaced by `null` in an array (or at the root).
    pub(crate) fn take(&self, v: &mut Value) -> Option<Value> {
        let Some((last, parents)) = self.tokens.split_last() else {
            return Some(v.take());
        };
        let mut parent = &mut *v;
        for t in parents {
            parent = match parent {
                Value::Object(m) => m.get_mut(t)?,
                Value::Array(a) => a.get_mut(t.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        match parent {
            Value::Object(m) => m.shift_remove(last),
            Value::Array(a) => a.get_mut(last.parse::<usize>().ok()?).map(Value::take),
            _ => None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_keys_and_pointers() {
        let p = Pointer::parse("--x", "traj").unwrap();
        assert_eq!(
            (p.as_str(), p.tokens()),
            ("/traj", &["traj".to_string()][..])
        );
        let p = Pointer::parse("--x", "a/b~c").unwrap();
        assert_eq!(p.as_str(), "/a~1b~0c");
        assert_eq!(p.get(&json!({"a/b~c": 1})), Some(&json!(1)));
        let p = Pointer::parse("--x", "/a~1b/~0/0").unwrap();
        assert_eq!(p.tokens(), ["a/b", "~", "0"]);
        let p = Pointer::parse("--x", "").unwrap();
        assert!(p.tokens().is_empty());
        let err = Pointer::parse("--records-field", "/a~2").unwrap_err();
        assert_eq!(
            err.to_string(),
            "--records-field `/a~2` is not a JSON pointer: `~` must be followed by `0` or `1` (write `~0` for `~` and `~1` for `/`)"
        );
    }

    #[test]
    fn take_removes_from_objects_keeping_order() {
        let mut v = json!({"a": 1, "m": [1, 2], "z": {"messages": [3], "k": 0}});
        assert_eq!(
            Pointer::parse("-", "/m").unwrap().take(&mut v),
            Some(json!([1, 2]))
        );
        assert_eq!(
            Pointer::parse("-", "/z/messages").unwrap().take(&mut v),
            Some(json!([3]))
        );
        assert_eq!(v.to_string(), r#"{"a":1,"z":{"k":0}}"#);
        assert_eq!(Pointer::parse("-", "/nope/x").unwrap().take(&mut v), None);
        let mut arr = json!([[1], [2]]);
        assert_eq!(
            Pointer::parse("-", "/1").unwrap().take(&mut arr),
            Some(json!([2]))
        );
        assert_eq!(arr, json!([[1], null]));
        let mut root = json!([1]);
        assert_eq!(
            Pointer::parse("-", "").unwrap().take(&mut root),
            Some(json!([1]))
        );
        assert_eq!(root, Value::Null);
    }
}
