//! `show` and `rescore` of a run whose trials were not all stored report it partial.
