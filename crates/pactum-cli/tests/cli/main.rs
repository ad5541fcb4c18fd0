//! End-to-end tests of the `pactum` binary: each test spawns the
//! real binary from the workspace root and checks its output and exit code.
//! Fixtures are in `tests/fixtures/` (one README line each); what users
//! read is pinned with insta snapshots in `snapshots/`.

mod bad_input;
mod browser;
mod commands;
mod example;
mod exit_codes;
mod html;
mod otel;
mod output_flags;
mod parallel;
mod shared_data;
mod support;
mod untrusted;
