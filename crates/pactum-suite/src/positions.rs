//! Where every node of a [`crate::Document`] was written, in a compact
//! tree: one 28-byte slot per node instead of a map from pointer strings
//! (a suite of many tests has a few nodes per test, so the index is as
//! large as the file, not several times larger).
//!
//! Lookups are exact: a JSON pointer names a node only if every one of its
//! reference tokens is, byte for byte, the escaped key
//! ([`pactum_core::json::escape_pointer_token`]) or the decimal index of a
//! node on the way down, as it would have to be to equal the node's
//! pointer string.

use std::collections::{BTreeMap, HashMap};

use pactum_core::json::{escape_pointer_token, unescape_pointer_token};

use crate::document::{Location, Pos};

/// The key symbol of a list item or of the root: it has no key.
const NO_KEY: u32 = u32::MAX;

/// A line or column that does not fit a `u32`: the position is in
/// [`Positions::wide`].
const WIDE: u32 = u32::MAX;

/// One node. A mapping's entries sit in one block of slots sorted by key
/// symbol (binary search); a list's items in one block in order.
#[derive(Debug, Clone, Copy)]
struct Slot {
    key_line: u32,
    key_column: u32,
    value_line: u32,
    value_column: u32,
    /// The mapping key's symbol, or [`NO_KEY`].
    key: u32,
    /// The first child's slot.
    first: u32,
    /// How many children.
    len: u32,
}

const EMPTY: Slot = Slot {
    key_line: 0,
    key_column: 0,
    value_line: 0,
    value_column: 0,
    key: NO_KEY,
    first: 0,
    len: 0,
};

/// The position index of one document; slot 0 is the root.
#[derive(Debug, Clone, Default)]
pub(crate) struct Positions {
    slots: Vec<Slot>,
    /// Symbol → key.
    keys: Vec<Box<str>>,
    /// Key → symbol.
    symbols: HashMap<Box<str>, u32>,
    /// Locations set after parsing, by pointer (they take precedence).
    overrides: BTreeMap<String, Location>,
    /// Locations of slots with a line or column beyond `u32`.
    wide: HashMap<u32, Location>,
}

/// More nodes than the index can number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooManyNodes;

impl Positions {
    /// An index holding only the root's slot (its location unset).
    pub(crate) fn with_root() -> Positions {
        Positions {
            slots: vec![EMPTY],
            ..Positions::default()
        }
    }

    /// Reserves `len` consecutive child slots for the node in `slot`;
    /// returns the first.
    ///
    /// # Errors
    /// [`TooManyNodes`] past `u32::MAX - 1` slots.
    pub(crate) fn children(&mut self, slot: u32, len: usize) -> Result<u32, TooManyNodes> {
        let first = u32::try_from(self.slots.len()).map_err(|_| TooManyNodes)?;
        let len32 = u32::try_from(len).map_err(|_| TooManyNodes)?;
        if first.checked_add(len32).is_none_or(|end| end == u32::MAX) {
            return Err(TooManyNodes);
        }
        self.slots.resize(self.slots.len() + len, EMPTY);
        let s = &mut self.slots[slot as usize];
        s.first = first;
        s.len = len32;
        Ok(first)
    }

    /// The symbol of a mapping key, interned.
    pub(crate) fn symbol(&mut self, key: &str) -> u32 {
        if let Some(s) = self.symbols.get(key) {
            return *s;
        }
        // Fewer distinct keys than slots, which are bounded by `u32`.
        let s = u32::try_from(self.keys.len()).unwrap_or(NO_KEY - 1);
        self.keys.push(key.into());
        self.symbols.insert(key.into(), s);
        s
    }

    /// Records the node in `slot`: its key's symbol (for a mapping entry)
    /// and its location.
    pub(crate) fn set(&mut self, slot: u32, key: Option<u32>, at: Location) {
        let narrow = |p: Pos| match (u32::try_from(p.line), u32::try_from(p.column)) {
            (Ok(l), Ok(c)) if l != WIDE && c != WIDE => Some((l, c)),
            _ => None,
        };
        let s = &mut self.slots[slot as usize];
        s.key = key.unwrap_or(NO_KEY);
        match (narrow(at.key), narrow(at.value)) {
            (Some(k), Some(v)) => {
                (s.key_line, s.key_column) = k;
                (s.value_line, s.value_column) = v;
            }
            _ => {
                s.key_line = WIDE;
                self.wide.insert(slot, at);
            }
        }
    }

    /// Gives back the spare capacity of a finished index.
    pub(crate) fn shrink(&mut self) {
        self.slots.shrink_to_fit();
    }

    /// Sets (or replaces) the location of `pointer`, e.g. a node put in
    /// place after parsing; it is found before the parsed tree.
    pub(crate) fn set_location(&mut self, pointer: String, at: Location) {
        self.overrides.insert(pointer, at);
    }

    fn location(&self, slot: u32) -> Location {
        let s = &self.slots[slot as usize];
        if s.key_line == WIDE {
            return self.wide.get(&slot).copied().unwrap_or_default();
        }
        Location {
            key: Pos {
                line: s.key_line as usize,
                column: s.key_column as usize,
            },
            value: Pos {
                line: s.value_line as usize,
                column: s.value_column as usize,
            },
        }
    }

    /// The child of `slot` that `token` (one escaped reference token)
    /// names exactly.
    fn child(&self, slot: u32, token: &str) -> Option<u32> {
        let s = &self.slots[slot as usize];
        if s.len == 0 {
            return None;
        }
        let block = s.first..s.first + s.len;
        if self.slots[s.first as usize].key == NO_KEY {
            // A list: the canonical decimal index only (no sign, no
            // leading zero), as the node's pointer is written.
            let canonical = !token.is_empty()
                && token.bytes().all(|b| b.is_ascii_digit())
                && (token == "0" || !token.starts_with('0'));
            let i: u32 = token.parse().ok().filter(|_| canonical)?;
            return (i < s.len).then(|| s.first + i);
        }
        let key = unescape_pointer_token(token).ok()?;
        if escape_pointer_token(&key) != token {
            return None;
        }
        let sym = *self.symbols.get(key.as_str())?;
        let entries = &self.slots[block.start as usize..block.end as usize];
        let at = entries.binary_search_by_key(&sym, |e| e.key).ok()?;
        Some(s.first + at as u32)
    }

    /// The location of the node at `pointer`, or of its nearest ancestor
    /// that has one; `None` when not even the root has (an empty index, or
    /// a pointer not starting with `/`).
    pub(crate) fn locate(&self, pointer: &str) -> Option<Location> {
        // Node at each depth reached walking down the tree.
        let mut path: Vec<u32> = if self.slots.is_empty() {
            Vec::new()
        } else {
            vec![0]
        };
        // End (in bytes) of the pointer prefix at each depth.
        let mut ends: Vec<usize> = vec![0];
        if !pointer.is_empty() {
            if !pointer.starts_with('/') {
                // Only set locations can match (the tree's pointers all
                // start with `/`), and never the root.
                let mut p = pointer;
                loop {
                    if let Some(l) = self.overrides.get(p) {
                        return Some(*l);
                    }
                    p = &p[..p.rfind('/')?];
                }
            }
            let mut at = 0;
            let mut walking = !path.is_empty();
            for token in pointer[1..].split('/') {
                at += 1 + token.len();
                ends.push(at);
                if walking {
                    match self.child(path[path.len() - 1], token) {
                        Some(c) => path.push(c),
                        None => walking = false,
                    }
                }
            }
        }
        for depth in (0..ends.len()).rev() {
            if !self.overrides.is_empty() {
                if let Some(l) = self.overrides.get(&pointer[..ends[depth]]) {
                    return Some(*l);
                }
            }
            if let Some(slot) = path.get(depth) {
                return Some(self.location(*slot));
            }
        }
        None
    }

    /// Every node's pointer and location (overrides included), in pointer
    /// order. For small documents: it builds every pointer string.
    pub(crate) fn all(&self) -> BTreeMap<String, Location> {
        let mut out = BTreeMap::new();
        if !self.slots.is_empty() {
            self.collect(0, String::new(), &mut out);
        }
        for (p, l) in &self.overrides {
            out.insert(p.clone(), *l);
        }
        out
    }

    fn collect(&self, slot: u32, pointer: String, out: &mut BTreeMap<String, Location>) {
        let s = self.slots[slot as usize];
        for (i, c) in (s.first..s.first + s.len).enumerate() {
            let key = self.slots[c as usize].key;
            let token = match self.keys.get(key as usize) {
                Some(k) if key != NO_KEY => escape_pointer_token(k),
                _ => i.to_string(),
            };
            self.collect(c, format!("{pointer}/{token}"), out);
        }
        out.insert(pointer, self.location(slot));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> Location {
        Location {
            key: Pos { line, column },
            value: Pos {
                line,
                column: column + 1,
            },
        }
    }

    #[test]
    fn positions_beyond_u32_are_kept_exactly() {
        let mut p = Positions::with_root();
        p.set(0, None, at(1, 1));
        let first = p.children(0, 1).unwrap_or(0);
        let big = usize::try_from(u64::from(u32::MAX) + 7).unwrap_or(usize::MAX);
        let k = p.symbol("a");
        p.set(first, Some(k), at(big, 3));
        assert_eq!(p.locate("/a"), Some(at(big, 3)));
        assert_eq!(p.locate("/a/b"), Some(at(big, 3)));
        assert_eq!(p.locate(""), Some(at(1, 1)));
    }

    #[test]
    fn overrides_come_first_and_are_exact_strings() {
        let mut p = Positions::with_root();
        p.set(0, None, at(1, 1));
        p.set_location("/x/y".into(), at(5, 5));
        assert_eq!(p.locate("/x/y"), Some(at(5, 5)));
        assert_eq!(p.locate("/x/y/z"), Some(at(5, 5)));
        assert_eq!(p.locate("/x"), Some(at(1, 1)));
        assert_eq!(p.locate("x"), None);
    }
}
