//! `grade`: recorded traces against contracts.
