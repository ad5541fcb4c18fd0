//! End-to-end tests of authored tests and multi-turn conversations
//! (SPEC §3.6–§3.7). Each test spawns the real `pactum` binary in
//! its own temporary folder with its own store (`--db`), against a real
//! `testing/scripted_server.py` process playing the targets, the
//! interpreter model, the simulated user and the judge. What reached the
//! server is proved with its request counters (`/_stats`, by rule) and
//! recorded bodies. Suites are fixtures in `tests/fixtures/authored/` (one
//! README line each) with `@NAME@` placeholders.

mod ambiguous;
mod cache;
mod example;
mod framings;
mod rescore;
mod stopping;
mod support;
mod unusable;
