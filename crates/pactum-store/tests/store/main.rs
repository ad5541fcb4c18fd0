//! Integration tests of pactum-store: one binary, one module per concern.
//! `durability` and `secrets` re-run this binary as a child process (see
//! `common::run_child`).

mod cache;
mod common;
mod docs;
mod durability;
mod errors;
mod health;
mod leases;
mod migrations;
mod props;
mod roundtrip;
mod runs;
mod secrets;
