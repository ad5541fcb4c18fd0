//! Integration tests of pactum-probe: one binary, one module per area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod authored;
mod common;
mod generation;
mod props;
mod scoring;
