//! End-to-end tests of `pactum run`, `pactum runs` and `pactum show`
//! Each test spawns the real binary in its own temporary
//! folder with its own store (`--db`), against real server processes on
//! 127.0.0.1: `testing/scripted_server.py` (through
//! `pactum_llm::testing::ScriptedServer`), `examples/targets/http_agent.py`,
//! `examples/targets/echo_agent.py` and
//! `examples/targets/persistent_echo_agent.py`. What the servers were sent is
//! proved with their request counters (`/_stats`). Suites are fixtures in
//! `tests/fixtures/run/` (one README line each) with `@NAME@` placeholders
//! for ports and paths; what users read is pinned with insta snapshots.

mod cache;
mod example;
mod judge;
mod limits;
mod persistent;
mod resume;
mod secrets;
mod suite_errors;
mod support;
mod targets;
