//! # pactum-cli
//!
//! The command-line front end. Placeholder until wired.

/// Runs the CLI and returns the process exit code.
pub fn main() -> i32 {
    0
}
